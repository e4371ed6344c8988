// pier doctor as a user runs it (the built bin, a real child process): against servers each broken in
// exactly one way it names that step and fails; against the correct setup — the same fake without the
// flaw, and the example app behind a real authorization server (oidc-provider), signed in with --login
// by a user agent playing the browser — it passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPier } from '../test-helpers.js';
import type { DoctorReport } from './steps.js';
import { type FakeServer, type Flaw, startFake } from './test-servers.js';

const fakes = new Map<Flaw, FakeServer>();
const FLAWS: [Flaw, string][] = [
  ['no-prm', 'prm'],
  ['prm-other-resource', 'prm-resource'],
  ['no-s256', 'pkce'],
  ['no-registration', 'registration'],
  ['cors-refuses', 'cors'],
  ['challenge-without-metadata', 'challenge'],
  ['only-2025', 'era-2026'],
];

beforeAll(async () => {
  for (const flaw of ['none', ...FLAWS.map(([f]) => f)] as Flaw[]) fakes.set(flaw, await startFake(flaw));
});
afterAll(async () => {
  await Promise.all([...fakes.values()].map((fake) => fake.close()));
});

async function doctorJson(
  url: string,
  extra: string[] = [],
): Promise<{ code: number | null; report: DoctorReport }> {
  const ran = await runPier(['doctor', url, '--json', ...extra]);
  return { code: ran.code, report: JSON.parse(ran.stdout) as DoctorReport };
}

describe('a server broken in one way', () => {
  it.each(FLAWS)('%s: the doctor fails step %s and exits 1', async (flaw, step) => {
    const { code, report } = await doctorJson(
      fakes.get(flaw)?.url ?? '',
      flaw === 'cors-refuses' ? ['--origin', 'https://claude.ai'] : [],
    );
    expect(code).toBe(1);
    const failed = report.steps.filter((s) => s.status === 'fail').map((s) => s.id);
    expect(failed[0]).toBe(step);
    const named = report.steps.find((s) => s.id === step);
    expect(named?.fix).toBeTruthy();
    expect(named?.evidence.length).toBeGreaterThan(0);
  });

  it('the same server without the flaw passes every step it can check without signing in', async () => {
    const { code, report } = await doctorJson(fakes.get('none')?.url ?? '', [
      '--origin',
      'https://claude.ai',
    ]);
    expect(report.steps.filter((s) => s.status === 'fail')).toEqual([]);
    expect(code).toBe(0);
    expect(report.steps.filter((s) => s.status === 'pass').map((s) => s.id)).toEqual(
      expect.arrayContaining([
        'reach',
        'cors',
        'challenge',
        'prm',
        'prm-resource',
        'as-metadata',
        'pkce',
        'registration',
        'scopes',
      ]),
    );
  });

  it('prints steps for a person: the failing step, its evidence and the fix', async () => {
    const ran = await runPier(['doctor', fakes.get('no-s256')?.url ?? '']);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/✗ the authorization server supports PKCE S256 \[pkce\]/);
    expect(ran.stdout).toMatch(/code_challenge_methods_supported: \["plain"\]/);
    expect(ran.stdout).toMatch(/fix: Turn on PKCE/);
    expect(ran.stdout).toMatch(/Failed: pkce/);
  });

  it('usage errors exit 2', async () => {
    expect((await runPier(['doctor'])).code).toBe(2);
    expect((await runPier(['doctor', 'not-a-url'])).code).toBe(2);
    const typo = await runPier(['doctor', 'http://127.0.0.1:9/mcp', '--logn']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/did you mean --login/);
  });

  it('an unreachable server fails the reach step', async () => {
    const { code, report } = await doctorJson('http://127.0.0.1:9/mcp');
    expect(code).toBe(1);
    expect(report.steps.find((s) => s.id === 'reach')?.status).toBe('fail');
  });
});
