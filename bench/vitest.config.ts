import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'bench',
    include: ['src/**/*.test.ts'],
    // The smoke test runs the compiled harness and server programs: build them first.
    globalSetup: ['./vitest.global-setup.ts'],
  },
});
