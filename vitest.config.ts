import { defineConfig } from 'vitest/config';

// One project per package. `turbo run test` (and the check, on Node 20) runs each package's own
// `vitest run`; the root `vitest run` runs them all, and the check's Node 24 pass (`test:node24`)
// runs from here the projects whose behaviour can depend on the runtime.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tests/*', 'bench'],
    // Vitest's default on 2 cores is one worker; these suites mostly wait on child processes and
    // sockets, so two files at a time keep both cores busy.
    maxWorkers: 2,
    // Every suite retries once; this prints what a retried test's failed attempt said (projects' own
    // reporters do not apply when they run from here).
    reporters: ['default', './scripts/vitest-retried-reporter.mjs'],
  },
});
