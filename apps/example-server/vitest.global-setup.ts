// End-to-end tests run the built app (dist/main.js, and the notes board in dist/view/) as a child process:
// rebuild what a newer source file changed. The packages it imports must be built already (turbo's `test`
// depends on `build`). The browser test needs Chromium: installed here when missing (no test timeout
// applies to a setup), or the run fails saying how.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureChromium } from './src/e2e/test-browser.js';

export default function setup(): void {
  ensureChromium();
  const dir = dirname(fileURLToPath(import.meta.url));
  const board = join(dir, 'dist', 'view', 'notes-board.html');
  if (!existsSync(board) || statSync(board).mtimeMs < newestSource(join(dir, 'view'))) {
    execFileSync(process.execPath, [join(dir, 'scripts', 'build-view.mjs')], { stdio: 'inherit' });
  }
  const built = join(dir, 'dist', 'main.js');
  const newest = newestSource(join(dir, 'src'));
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return;
  const require = createRequire(import.meta.url);
  for (const name of ['@pier/config', '@pier/core', '@pier/transport-http', '@pier/plugin-health']) {
    try {
      require.resolve(name);
    } catch {
      throw new Error(
        `${name} is not built: run \`pnpm turbo run build --filter=@pier/example-server...\` first`,
      );
    }
  }
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.build.json')],
    {
      stdio: 'inherit',
    },
  );
}

/** The newest modification time of a source file under `dir` (tests and test helpers left out). */
function newestSource(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter(
      (file) => /\.(ts|html)$/.test(file) && !/\.test\.ts$|(^|\/)test-[^/]*\.ts$|apps-host\//.test(file),
    )
    .reduce((latest, file) => Math.max(latest, statSync(join(dir, file)).mtimeMs), 0);
}
