// The tarball of every package, as `pnpm publish` would make it (workspace: ranges rewritten): the one
// that turbo's `pack` task wrote to packages/<name>/.pack/package.tgz, which `check:package` lints too,
// so a check packs each package once. Packed here only when missing or older than what it holds.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { PACKAGES, type PackageFolder, PNPM, runOk, userEnv, WORKSPACE } from './scratch.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of each package's tarball (create-pier too, whose tarball also holds templates). */
    tarballs: Record<PackageFolder | 'create-pier', string>;
  }
}

/** Where turbo's `pack` task (`pnpm pack --out .pack/package.tgz`) puts a package's tarball. */
const TARBALL = join('.pack', 'package.tgz');
const FOLDERS = [...PACKAGES, 'create-pier'] as const;
type Folder = (typeof FOLDERS)[number];

export default async function setup(project: TestProject): Promise<void> {
  const packed = await Promise.all(FOLDERS.map(tarball));
  project.provide('tarballs', Object.fromEntries(packed) as Record<Folder, string>);
}

async function tarball<F extends Folder>(folder: F): Promise<[F, string]> {
  const dir = join(WORKSPACE, 'packages', folder);
  if (!existsSync(join(dir, 'dist', 'index.js'))) {
    throw new Error(
      `packages/${folder}/dist/index.js is missing: build the packages first ` +
        '(npx -y pnpm@10.34.9 turbo run build --filter=./packages/*)',
    );
  }
  const file = join(dir, TARBALL);
  if (!isFresh(file, dir)) {
    await runOk('npx', [...PNPM, 'pack', '--out', TARBALL], { cwd: dir, env: userEnv(), timeoutMs: 120_000 });
  }
  return [folder, file];
}

/** The tarball exists and is newer than every file it is made of (package.json, README, LICENSE, dist). */
function isFresh(file: string, dir: string): boolean {
  if (!existsSync(file)) return false;
  const sources = [
    'package.json',
    'README.md',
    'LICENSE',
    ...readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' }).map((name) =>
      join('dist', name),
    ),
  ];
  const packedAt = statSync(file).mtimeMs;
  return sources.every(
    (name) => !existsSync(join(dir, name)) || statSync(join(dir, name)).mtimeMs <= packedAt,
  );
}
