/**
 * Experiment preload (never used by the service itself): `node --import ./bench/experiments/gc-on-signal.mjs main.js`
 * runs two full garbage collections whenever the process receives SIGWINCH (a signal Nest's shutdown hooks leave alone), so an experiment can read the
 * memory a process really holds (RSS, heap used) rather than garbage V8 has not collected yet.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
process.on('SIGWINCH', () => {
  gc();
  gc();
});
