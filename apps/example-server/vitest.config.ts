import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'example-server', include: ['src/**/*.test.ts'] } });
