// End-to-end tests run the built app (dist/main.js) as a child process: rebuild it when a source file is
// newer than the build. The packages it imports must be built already (turbo's `test` depends on `build`).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const dir = dirname(fileURLToPath(import.meta.url));
  const built = join(dir, 'dist', 'main.js');
  const newest = readdirSync(join(dir, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !/\.test\.ts$|(^|\/)test-[^/]*\.ts$/.test(file))
    .reduce((latest, file) => Math.max(latest, statSync(join(dir, 'src', file)).mtimeMs), 0);
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
