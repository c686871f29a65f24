/** Command line of the experiments: `<label> <main.js>` then `--flag` and `--name <number>` options. */
export function experimentArgs(usage) {
  const [label, main] = process.argv.slice(2);
  if (!label || !main) {
    process.stderr.write(`usage: ${usage}\n`);
    process.exit(2);
  }
  const flag = (name) => process.argv.includes(`--${name}`);
  const option = (name, fallback) => (flag(name) ? Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) : fallback);
  return { label, main, flag, option };
}
