import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'testing',
    // One retry on a loaded 2-core machine: vitest reports a retried test, and a defect still fails twice.
    retry: 1,
    // …and prints what a retried test's failed attempt said (vitest alone prints nothing of it).
    reporters: ['default', '../../scripts/vitest-retried-reporter.mjs'],
    include: ['src/**/*.test.ts'],
    // Real sockets and child processes on a loaded 2-core machine: generous bounds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    server: {
      deps: {
        // Load @pier/core as Node does, not through Vite: Vite replaces core's dynamic import of its
        // optional peer @pier/transport-http with a stub that throws, so listen() could not find it.
        external: [/\/packages\/core\/dist\//],
      },
    },
  },
});
