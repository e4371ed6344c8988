// The official MCP conformance suite against the app in both HTTP modes: every server scenario that
// revisions 2026-07-28 and 2025-11-25 require (`--requirements`), plus two pending scenarios by name.
// Every run must pass, except the 2025-11-25 scenarios that cannot apply to stateless HTTP, listed in
// expected-failures.stateless.yml (see the README for why).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_DIR,
  expectedFailures,
  listScenarios,
  type Mode,
  notPassed,
  pooled,
  type RunningApp,
  runSuite,
  type Selection,
  SUITE_VERSION,
  type SuiteRun,
  startApp,
  withStatus,
} from './test-helpers.js';

const STATELESS_EXCEPTIONS = join(APP_DIR, 'expected-failures.stateless.yml');
const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
/** Pending scenarios: the suite runs them with a revision's requirements but does not score them. */
const NAMED = ['json-schema-2020-12', 'http-custom-header-server-validation'] as const;
const MODES: readonly Mode[] = ['sessions', 'stateless'];
/** The tasks extension's scenarios: the 2026-07-28 run runs them too, unscored; this app serves them. */
const TASKS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
] as const;
/** The skills extension's scenarios: no run includes them, so they run by name (`--force`). */
const SKILLS = [
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
  'sep-2640-skills-directory',
] as const;
// Generous bounds: the first run may fetch node@24; a run itself takes seconds.
const SUITE_TIMEOUT_MS = 150_000;
// Two referee processes per core: each spends most of its time waiting for the app.
const CONCURRENT_RUNS = 4;

interface Planned {
  readonly name: string;
  readonly mode: Mode;
  readonly selection: Selection;
  readonly expectedFailures?: string;
}

const PLAN: readonly Planned[] = [
  ...REVISIONS.flatMap((requirements) =>
    MODES.map((mode) => ({
      name: `${requirements} ${mode}`,
      mode,
      selection: { requirements },
      ...(mode === 'stateless' &&
        requirements === '2025-11-25' && { expectedFailures: STATELESS_EXCEPTIONS }),
    })),
  ),
  ...NAMED.flatMap((scenario) =>
    MODES.map((mode) => ({
      name: `${scenario} ${mode}`,
      mode,
      selection: { scenario, specVersion: '2026-07-28' },
    })),
  ),
  ...SKILLS.flatMap((scenario) =>
    MODES.map((mode) => ({
      name: `${scenario} ${mode}`,
      mode,
      selection: { scenario, specVersion: '2026-07-28', force: true },
    })),
  ),
];

const scored = new Map<string, string[]>();
const runs = new Map<string, SuiteRun>();
const apps = new Map<Mode, RunningApp>();

// Every run at once (a few at a time): the whole suite takes about as long as its longest run.
beforeAll(async () => {
  const [started, listed] = await Promise.all([
    Promise.all(MODES.map((mode) => startApp(mode))),
    Promise.all(REVISIONS.map((revision) => listScenarios(revision))),
  ]);
  for (const [i, mode] of MODES.entries()) apps.set(mode, started[i] as RunningApp);
  for (const [i, revision] of REVISIONS.entries()) scored.set(revision, listed[i] as string[]);
  const results = await pooled(
    CONCURRENT_RUNS,
    PLAN.map((run) => () => {
      const url = (apps.get(run.mode) as RunningApp).url;
      return runSuite(url, run.selection, {
        timeoutMs: SUITE_TIMEOUT_MS,
        ...(run.expectedFailures !== undefined && { expectedFailures: run.expectedFailures }),
      });
    }),
  );
  for (const [i, run] of PLAN.entries()) runs.set(run.name, results[i] as SuiteRun);
}, 3 * SUITE_TIMEOUT_MS);

afterAll(async () => {
  for (const app of apps.values()) expect(await app.stop()).toBe(0);
}, 15_000);

describe(`the MCP conformance suite ${SUITE_VERSION}`, () => {
  it('scores the 37 server scenarios of 2026-07-28 and the 30 of 2025-11-25 this app was written for', () => {
    expect(scored.get('2026-07-28')).toHaveLength(37);
    expect(scored.get('2025-11-25')).toHaveLength(30);
  });

  it('is the version the README reports, and the README lists every scenario', () => {
    const readme = readFileSync(join(APP_DIR, 'README.md'), 'utf8');
    expect(readme).toContain(`@modelcontextprotocol/conformance@${SUITE_VERSION}`);
    for (const scenario of [...scored.values()].flat().concat(NAMED, TASKS, SKILLS)) {
      expect(readme).toContain(`\`${scenario}\``);
    }
  });

  it('lists only real 2025-11-25 scenarios as stateless exceptions', () => {
    const exceptions = expectedFailures(STATELESS_EXCEPTIONS);
    expect(exceptions.length).toBeGreaterThan(0);
    for (const exception of exceptions) expect(scored.get('2025-11-25')).toContain(exception);
  });
});

describe.each(REVISIONS)('--requirements %s', (revision) => {
  it.each(MODES)('%s: every scored scenario runs, and passes', (mode) => {
    const run = runs.get(`${revision} ${mode}`) as SuiteRun;
    const required = scored.get(revision) as string[];
    expect(
      required.filter((scenario) => !run.checks.has(scenario)),
      run.output,
    ).toEqual([]);
    // The extension scenarios (tasks-*, sep-2640-skills-*) and the pending ones run too, unscored: the
    // extensions are checked below, the pending ones by name.
    const outcome = new Map([...run.checks].filter(([scenario]) => required.includes(scenario)));
    const exceptions = mode === 'stateless' && revision === '2025-11-25';
    expect(notPassed(outcome).sort(), run.output).toEqual(
      exceptions ? expectedFailures(STATELESS_EXCEPTIONS).sort() : [],
    );
    if (exceptions) {
      // Of those, exactly six fail; the other only warns and counts as passed.
      expect(withStatus(outcome, 'FAILURE')).toHaveLength(6);
    }
    // The suite's own verdict (with the baseline: no unexpected failure, no stale exception).
    expect(run.exitCode, run.output).toBe(0);
  });
});

describe.each(TASKS)('--requirements 2026-07-28, tasks extension scenario %s', (scenario) => {
  it.each(MODES)('%s: runs, and no check fails or warns', (mode) => {
    const run = runs.get(`2026-07-28 ${mode}`) as SuiteRun;
    const checks = run.checks.get(scenario);
    expect(checks, run.output).toBeDefined();
    expect(notPassed(new Map([[scenario, checks ?? []]])), run.output).toEqual([]);
    // Every check ran, except the one the suite itself skips (status notifications: its harness is pending).
    const skipped = (checks ?? []).filter((check) => check.status === 'SKIPPED').map((check) => check.id);
    expect(skipped).toEqual(scenario === 'tasks-status-notifications' ? ['tasks-status-notifications'] : []);
  });
});

describe.each(SKILLS)('--scenario %s --force (skills extension, at 2026-07-28)', (scenario) => {
  it.each(MODES)('%s: every check passes, none skipped', (mode) => {
    const run = runs.get(`${scenario} ${mode}`) as SuiteRun;
    expect([...run.checks.keys()], run.output).toEqual([scenario]);
    expect(withStatus(run.checks, 'FAILURE', 'WARNING', 'SKIPPED'), run.output).toEqual([]);
    expect(run.exitCode, run.output).toBe(0);
  });
});

describe.each(NAMED)('--scenario %s (pending, at 2026-07-28)', (scenario) => {
  it.each(MODES)('%s: passes every check', (mode) => {
    const run = runs.get(`${scenario} ${mode}`) as SuiteRun;
    expect([...run.checks.keys()], run.output).toEqual([scenario]);
    expect(notPassed(run.checks), run.output).toEqual([]);
    expect(withStatus(run.checks, 'SUCCESS'), run.output).toEqual([scenario]);
    expect(run.exitCode, run.output).toBe(0);
  });
});

describe('the app', () => {
  it.each(MODES)('%s: logs no error while the suite runs', (mode) => {
    expect(apps.get(mode)?.stderr()).not.toMatch(/ERROR/);
  });
});
