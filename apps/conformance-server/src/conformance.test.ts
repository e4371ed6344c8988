// The official MCP conformance suite, every server scenario, against the app in both HTTP modes.
// Sessions: every scenario passes, with no failure and no warning. Stateless: every scenario passes
// but those in expected-failures.stateless.yml, which must fail (see the README for why).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_DIR,
  expectedFailures,
  listScenarios,
  notPassed,
  type RunningApp,
  runSuite,
  SUITE_VERSION,
  startApp,
} from './test-helpers.js';

const STATELESS_EXCEPTIONS = join(APP_DIR, 'expected-failures.stateless.yml');
// Generous bounds: the first run may fetch node@24; a run itself takes seconds.
const SUITE_TIMEOUT_MS = 150_000;

let scenarios: string[] = [];
beforeAll(async () => {
  scenarios = await listScenarios();
}, 90_000);

describe(`the MCP conformance suite ${SUITE_VERSION}`, () => {
  it('has the 32 server scenarios this app was written for', () => {
    expect(scenarios).toHaveLength(32);
  });

  it('is the version the README reports, and the README lists every scenario', () => {
    const readme = readFileSync(join(APP_DIR, 'README.md'), 'utf8');
    expect(readme).toContain(`@modelcontextprotocol/conformance@${SUITE_VERSION}`);
    for (const scenario of scenarios) expect(readme).toContain(`\`${scenario}\``);
  });

  it('lists only real scenarios as stateless exceptions', () => {
    const exceptions = expectedFailures(STATELESS_EXCEPTIONS);
    expect(exceptions.length).toBeGreaterThan(0);
    for (const exception of exceptions) expect(scenarios).toContain(exception);
  });
});

describe('sessionful mode (sessions: true, resumable streams)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp('sessions');
  }, 20_000);
  afterAll(async () => {
    expect(await app?.stop()).toBe(0);
  }, 10_000);

  it(
    'passes every scenario, without a failure or a warning',
    async () => {
      const run = await runSuite(app.url, { timeoutMs: SUITE_TIMEOUT_MS });
      expect([...run.checks.keys()].sort(), run.output).toEqual([...scenarios].sort());
      expect(notPassed(run.checks), run.output).toEqual([]);
      expect(run.exitCode, run.output).toBe(0);
      expect(app.stderr()).not.toMatch(/ERROR/);
    },
    SUITE_TIMEOUT_MS + 10_000,
  );
});

describe('stateless mode (the default)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp('stateless');
  }, 20_000);
  afterAll(async () => {
    expect(await app?.stop()).toBe(0);
  }, 10_000);

  it(
    'passes every scenario that applies, and fails exactly the listed exceptions',
    async () => {
      const run = await runSuite(app.url, {
        expectedFailures: STATELESS_EXCEPTIONS,
        timeoutMs: SUITE_TIMEOUT_MS,
      });
      expect([...run.checks.keys()].sort(), run.output).toEqual([...scenarios].sort());
      expect(notPassed(run.checks).sort(), run.output).toEqual(expectedFailures(STATELESS_EXCEPTIONS).sort());
      // The suite's own baseline check: no unexpected failure, no stale exception.
      expect(run.exitCode, run.output).toBe(0);
      expect(app.stderr()).not.toMatch(/ERROR/);
    },
    SUITE_TIMEOUT_MS + 10_000,
  );
});
