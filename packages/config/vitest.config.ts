import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'config',
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
  },
});
