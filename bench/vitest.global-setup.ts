// The smoke test runs the compiled harness (child processes cannot run .ts on Node 20): rebuild it when
// a source file is newer than the build. In the check, turbo's `build` has just built it: no second tsc.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const dir = dirname(fileURLToPath(import.meta.url));
  const built = join(dir, 'dist', 'run.js');
  const newest = readdirSync(join(dir, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .reduce((latest, file) => Math.max(latest, statSync(join(dir, 'src', file)).mtimeMs), 0);
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
}
