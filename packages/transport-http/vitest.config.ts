import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Core loads this package with a dynamic import('@pier/transport-http'); in the workspace that name is
  // not linked into core, so point it at this package's source for the integration tests.
  resolve: {
    alias: { '@pier/transport-http': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    name: 'transport-http',
    include: ['src/**/*.test.ts'],
    // Type tests (src/**/*.test-d.ts) are checked by the `typecheck` task (tsc over src), not here:
    // running tsc a second time inside every test run doubled CI time on two cores.
    // Child processes and real sockets are slow on a loaded 2-core CI machine: generous bounds.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
