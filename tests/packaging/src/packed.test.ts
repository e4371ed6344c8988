// What `pnpm pack` puts in each tarball: what a user downloads from the registry.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PACKAGES, runOk, WORKSPACE } from './scratch.js';

interface Manifest {
  name: string;
  version: string;
  exports: Record<string, string | Record<string, string>>;
  files: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

async function tarball(path: string): Promise<{ files: string[]; manifestText: string }> {
  const list = await runOk('tar', ['-tzf', path], { cwd: WORKSPACE });
  const manifest = await runOk('tar', ['-xzOf', path, 'package/package.json'], { cwd: WORKSPACE });
  const files = list.stdout
    .split('\n')
    .filter(Boolean)
    .map((entry) => entry.replace(/^package\//, ''))
    .sort();
  return { files, manifestText: manifest.stdout };
}

describe.each(PACKAGES)('the tarball of packages/%s', (folder) => {
  it('holds dist, package.json, the README and the LICENSE, and nothing else', async () => {
    const { files } = await tarball(inject('tarballs')[folder]);
    expect(files.filter((file) => !file.startsWith('dist/'))).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ]);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    // Tests, fixtures and test helpers stay out of the build.
    expect(files.filter((file) => /\.test(-d)?\.|fixtures\/|test-/.test(file))).toEqual([]);
  });

  it('has a package.json with no workspace: range, whose exports all exist in the tarball', async () => {
    const { files, manifestText } = await tarball(inject('tarballs')[folder]);
    expect(manifestText).not.toContain('workspace:');
    const manifest = JSON.parse(manifestText) as Manifest;
    const source = JSON.parse(
      readFileSync(join(WORKSPACE, 'packages', folder, 'package.json'), 'utf8'),
    ) as Manifest;
    expect(manifest).toMatchObject({
      name: source.name,
      version: source.version,
      type: 'module',
      files: ['dist'],
    });
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.values(target),
    );
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(files).toContain(target.replace(/^\.\//, ''));
    // What a user's installer reads: the same dependencies as in the workspace, each a registry range.
    for (const field of ['dependencies', 'peerDependencies'] as const) {
      expect(Object.keys(manifest[field] ?? {})).toEqual(Object.keys(source[field] ?? {}));
      for (const range of Object.values(manifest[field] ?? {})) expect(range).not.toMatch(/^[a-z]+:/);
    }
  });
});
