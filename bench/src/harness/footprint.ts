// Install footprint as a user sees it: the packages packed with pnpm (workspace ranges replaced by
// real ones), installed with npm into an empty project, counted in node_modules.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'packages');

export interface Footprint {
  /** The @pier packages the user asked for. */
  readonly installs: readonly string[];
  /** Every package in node_modules, the requested ones included, as name@version. */
  readonly packages: readonly string[];
  readonly bytes: number;
}

/** Packs `folders` (under packages/) and installs the tarballs with npm into a scratch project. */
export async function installFootprint(folders: readonly string[]): Promise<Footprint> {
  const scratch = await mkdtemp(join(tmpdir(), 'pier-footprint-'));
  try {
    const tarballs: string[] = [];
    for (const folder of folders) {
      const { stdout } = await run('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', scratch], {
        cwd: join(PACKAGES_DIR, folder),
        timeout: 120_000,
      });
      const tarball = stdout.trim().split('\n').pop()?.trim();
      if (!tarball?.endsWith('.tgz')) throw new Error(`pnpm pack in ${folder} printed no tarball: ${stdout}`);
      tarballs.push(tarball);
    }
    const project = join(scratch, 'project');
    await run('mkdir', [project]);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
    // npm installs required peers (zod) by itself, as it does for a user.
    await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs], {
      cwd: project,
      timeout: 300_000,
    });
    const packages = await installedPackages(join(project, 'node_modules'));
    const installs = await Promise.all(
      folders.map(async (folder) => {
        const manifest = JSON.parse(await readFile(join(PACKAGES_DIR, folder, 'package.json'), 'utf8'));
        return String(manifest.name);
      }),
    );
    return { installs, packages: packages.sort(), bytes: await sizeOf(join(project, 'node_modules')) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** name@version of every package folder in a node_modules tree (nested ones too). */
async function installedPackages(nodeModules: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        await visit(path);
        continue;
      }
      const manifest = JSON.parse(await readFile(join(path, 'package.json'), 'utf8'));
      found.push(`${manifest.name}@${manifest.version}`);
      await visit(join(path, 'node_modules'));
    }
  };
  await visit(nodeModules);
  return found;
}

/** Bytes of every file under `dir` (apparent size). */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}
