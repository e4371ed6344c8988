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
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
  },
});
