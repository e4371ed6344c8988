import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'cli',
    include: ['src/**/*.test.ts'],
    // Real child processes, sockets, builds and a type checker on a loaded 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
