import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'plugin-health',
    include: ['src/**/*.test.ts'],
    // Type tests (src/**/*.test-d.ts) are checked by the `typecheck` task (tsc over src), not here:
    // running tsc a second time inside every test run doubled CI time on two cores.
    // Child processes and real sockets are slow on a loaded 2-core CI machine: generous bounds.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    server: {
      deps: {
        // Load @pier/core as Node does, not through Vite: Vite replaces core's dynamic import of its
        // optional peer @pier/transport-http with a stub that throws, so listen() could not find it.
        external: [/\/packages\/core\/dist\//],
      },
    },
  },
});
