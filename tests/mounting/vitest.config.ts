import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'mounting',
    include: ['src/**/*.test.ts'],
    // Real servers on loopback ports, real SDK clients: bounded, never waited on without end.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
