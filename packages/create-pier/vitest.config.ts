import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'create-pier',
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
