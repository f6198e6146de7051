import { defineConfig } from 'vitest/config';

// Vitest 4+ no longer reads vitest.workspace.ts; the project list lives here (`test.projects`).
// `pnpm test` runs each package's own `vitest run` through turbo (after building), then the
// timing project alone; this file lets `pnpm vitest` at the root run every project in one
// process, the timing project last (its `sequence.groupOrder`).
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', './vitest.timing.config.ts'],
  },
});
