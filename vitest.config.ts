import { defineConfig } from 'vitest/config';

// One project per package: `vitest run` at the root runs them all (used for the Node 24 pass);
// turbo runs each package's own `vitest run` on Node 20.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tests/*', 'bench'],
  },
});
