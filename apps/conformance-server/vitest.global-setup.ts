// The tests run the built app (`node dist/main.js`) in a child process: rebuild it when src is newer.
// (Its dependencies, @pier/core and @pier/transport-http, are built by turbo's `^build`.)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const dir = dirname(fileURLToPath(import.meta.url));
  const built = join(dir, 'dist', 'main.js');
  const newest = readdirSync(join(dir, 'src'))
    .filter((file) => file.endsWith('.ts') && !/\.test\.ts$|^test-/.test(file))
    .reduce((latest, file) => Math.max(latest, statSync(join(dir, 'src', file)).mtimeMs), 0);
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
}
