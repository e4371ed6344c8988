// Packs every package once, as `pnpm publish` would (workspace: ranges rewritten), into a temp folder
// that the test files install from; the folder is removed when the run ends, whatever happened.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { PACKAGES, type PackageFolder, PNPM, runOk, userEnv, WORKSPACE } from './scratch.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of each package's tarball (create-pier too, whose tarball also holds templates). */
    tarballs: Record<PackageFolder | 'create-pier', string>;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const destination = realpathSync(mkdtempSync(join(tmpdir(), 'pier-tarballs-')));
  const remove = () => rmSync(destination, { recursive: true, force: true });
  try {
    const folders = [...PACKAGES, 'create-pier'] as const;
    const packed = await Promise.all(folders.map((folder) => pack(folder, destination)));
    project.provide('tarballs', Object.fromEntries(packed) as Record<(typeof folders)[number], string>);
  } catch (error) {
    remove();
    throw error;
  }
  return remove;
}

async function pack<F extends PackageFolder | 'create-pier'>(
  folder: F,
  destination: string,
): Promise<[F, string]> {
  const dir = join(WORKSPACE, 'packages', folder);
  if (!existsSync(join(dir, 'dist', 'index.js'))) {
    throw new Error(
      `packages/${folder}/dist/index.js is missing: build the packages first ` +
        '(npx -y pnpm@10.34.9 turbo run build --filter=./packages/*)',
    );
  }
  const { stdout } = await runOk('npx', [...PNPM, 'pack', '--json', '--pack-destination', destination], {
    cwd: dir,
    env: userEnv(),
    timeoutMs: 120_000,
  });
  const { filename } = JSON.parse(stdout) as { filename: string };
  return [folder, filename];
}
