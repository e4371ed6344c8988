import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'plugin-health',
    include: ['src/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
    server: {
      deps: {
        // Load @pier/core as Node does, not through Vite: Vite replaces core's dynamic import of its
        // optional peer @pier/transport-http with a stub that throws, so listen() could not find it.
        external: [/\/packages\/core\/dist\//],
      },
    },
  },
});
