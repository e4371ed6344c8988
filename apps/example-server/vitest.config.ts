import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'example-server',
    include: ['src/**/*.test.ts'],
    // The end-to-end tests run dist/main.js: rebuild it when the sources are newer.
    globalSetup: ['./vitest.global-setup.ts'],
  },
});
