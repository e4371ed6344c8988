// Scenario 1: @pier/config alone in a plain CLI, installed with npm.
import { describe, expect, inject, it } from 'vitest';
import { installedPackages, nodeModulesBytes, npmProjectForSuite, runNode, topLevel } from './scratch.js';

const SECRET = 'sk-live-0123456789abcdef';
const project = npmProjectForSuite('config-only', () => [inject('tarballs').config]);

describe('@pier/config alone, installed with npm', () => {
  it('installs @pier/config and zod, and nothing else', async () => {
    expect(topLevel(project.dir)).toEqual(['@pier/config', 'zod']);
    expect(await installedPackages(project.dir)).toEqual(['@pier/config', 'zod']);
    console.info(`[packaging] config only (npm): 2 packages, ${await nodeModulesBytes(project.dir)} bytes`);
  });

  it('reads flags over the environment over defaults, and prints its configuration report', async () => {
    const flags = await runNode(['sync.js', '--retries', '5', '--dry-run'], project.dir, {
      API_KEY: SECRET,
      RETRIES: '7',
    });
    expect(flags).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(flags.stdout)).toEqual({
      apiKey: { value: 'sk-l********', present: true, secret: true, source: 'API_KEY' },
      retries: { value: 5, present: true, secret: false, source: '--retries' },
      dryRun: { value: true, present: true, secret: false, source: '--dry-run' },
    });
    expect(flags.stdout).not.toContain(SECRET);

    const env = await runNode(['sync.js'], project.dir, { API_KEY: SECRET, RETRIES: '7' });
    expect(env.code).toBe(0);
    expect(JSON.parse(env.stdout)).toMatchObject({
      retries: { value: 7, source: 'RETRIES' },
      dryRun: { value: false, source: 'default' },
    });
  });

  it('exits 1 with one documented line per problem on stderr, and nothing on stdout', async () => {
    const bad = await runNode(['sync.js', '--retries', '5x', '--dry-run', 'yes'], project.dir, {
      API_KEY: '',
    });
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr.split('\n')).toEqual([
      'argv (argv[3]): unexpected argument after --dry-run, which takes only true or false as its value',
      'apiKey (API_KEY or --api-key): required',
      'retries (--retries): expected an integer, got "5x"',
      '',
    ]);

    const range = await runNode(['sync.js', '--retires', '2'], project.dir, {
      API_KEY: SECRET,
      RETRIES: '-1',
    });
    expect(range).toMatchObject({ code: 1, stdout: '' });
    expect(range.stderr.split('\n')).toEqual([
      '--retires (argv[0]): unknown option; did you mean --retries?',
      'retries (RETRIES): Too small: expected number to be >=0',
      '',
    ]);
  });

  it('answers --help and --version on stdout with exit code 0', async () => {
    const help = await runNode(['sync.js', '--help'], project.dir);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: sync \[options\]\n/);
    expect(help.stdout).toContain('--api-key <value>        API_KEY  Key for the remote (required; secret)');
    expect(await runNode(['sync.js', '--version'], project.dir)).toMatchObject({
      code: 0,
      stdout: '1.2.3\n',
    });
  });
});
