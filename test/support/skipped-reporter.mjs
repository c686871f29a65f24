/**
 * A jest reporter that ends a run by naming each test skipped on purpose (a title starting
 * "skipped:", as the contract suites give one when their server is not configured) and why.
 */
export default class SkippedReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.testResults.flatMap((file) =>
      file.testResults.filter((test) => test.status === 'pending' && test.title.startsWith('skipped:')).map((test) => test.fullName),
    );
    if (skipped.length === 0) return;
    process.stderr.write(`\n${skipped.length} skipped on purpose:\n${skipped.map((name) => `  - ${name}`).join('\n')}\n`);
  }
}
