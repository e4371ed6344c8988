// A vitest reporter that prints what a retried test's failed attempt said. Every suite here has `retry: 1`
// (a loaded 2-core machine loses a race now and then); a test that passes on its retry shows as passed,
// and vitest prints nothing of the attempt that failed, so a flaky test could not be told from a race
// nobody will see again. Added beside the default reporter in each package's vitest config.

const STACK_LINES = 8;

export default class RetriedReporter {
  onTestCaseResult(testCase) {
    const retries = testCase.diagnostic()?.retryCount ?? 0;
    const result = testCase.result();
    if (retries === 0 || result.state !== 'passed' || !result.errors?.length) return;
    const lines = [
      '',
      `retried: ${testCase.module.moduleId} > ${testCase.fullName}`,
      `  passed on attempt ${retries + 1}; the failed attempt said:`,
    ];
    for (const error of result.errors) {
      const stack = (error.stack ?? `${error.name ?? 'Error'}: ${error.message}`).split('\n');
      // The message and the test's own frames, not vitest's.
      const own = stack.filter((line, index) => index === 0 || !line.includes('/node_modules/'));
      for (const line of own.slice(0, STACK_LINES)) lines.push(`    ${line}`);
    }
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}
