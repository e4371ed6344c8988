// Child-process tests run fixtures against the built package: rebuild it when src is newer than dist.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const dir = dirname(fileURLToPath(import.meta.url));
  const built = join(dir, 'dist', 'index.js');
  const newest = readdirSync(join(dir, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !/\.test(-d)?\.ts$|test-helpers\.ts$/.test(file))
    .reduce((latest, file) => Math.max(latest, statSync(join(dir, 'src', file)).mtimeMs), 0);
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return;
  // As `pnpm build` builds it (declarations, then the bundle): a plain `tsc` emit would leave per-file
  // modules where the package ships a bundle, and later benches would measure those.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json'), '--emitDeclarationOnly'], {
    stdio: 'inherit',
  });
  const bundle = join(dir, '..', '..', 'scripts', 'bundle.mjs');
  execFileSync(process.execPath, [bundle, 'src/index.ts', 'src/transport.ts'], {
    cwd: dir,
    stdio: 'inherit',
  });
}
