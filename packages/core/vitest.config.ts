import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      // Core's tests use @pier/testing from its source: a devDependency would be a cycle (testing has
      // core as a peer), and testing imports nothing of core at run time — the server it is handed is
      // this core's own. tsconfig.json maps the name for the typecheck the same way.
      '@pier/testing': fileURLToPath(new URL('../testing/src/index.ts', import.meta.url)),
      // What testing imports of core at run time (serveTransport) is this core's source too.
      '@pier/core/transport': fileURLToPath(new URL('./src/transport.ts', import.meta.url)),
    },
  },
  test: {
    name: 'core',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    // Type tests (src/**/*.test-d.ts) are checked by the `typecheck` task (tsc over src), not here:
    // running tsc a second time inside every test run doubled CI time on two cores.
    // Child processes and real sockets are slow on a loaded 2-core CI machine: generous bounds.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['./vitest.global-setup.ts'],
  },
});
