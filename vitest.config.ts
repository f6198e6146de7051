import { defineConfig } from 'vitest/config';
import { TEST_WORKERS } from './vitest.shared';

// Vitest 4+ no longer reads vitest.workspace.ts; the project list lives here (`test.projects`).
// `pnpm test` is one run of this file (after `pnpm build`): the files of every package in one
// pool of TEST_WORKERS forks, then the timing project alone (its `sequence.groupOrder`). Each
// package's own `vitest run` (its `test` script, `turbo run test`) runs the same files. Not e2e/
// (`pnpm test:e2e`).
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'bench', './vitest.timing.config.ts'],
    maxWorkers: TEST_WORKERS,
  },
});
