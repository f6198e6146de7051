import { configDefaults, defineProject } from 'vitest/config';
import { sharedTestConfig } from './vitest.shared';

/**
 * The timing project: the tests that watch the event loop (or a trivial run's latency) during an
 * attack, from every package's `test/timing/`. Each compares the attack against a baseline taken
 * in the same test (`vitest.timing.ts`). They run one file at a time and after everything else
 * (`pnpm test`, or `pnpm test:timing` alone), so no neighbour's load is measured as theirs.
 */
export default defineProject({
  test: {
    ...sharedTestConfig.test,
    name: 'timing',
    include: ['apps/*/test/timing/**/*.test.ts', 'packages/*/test/timing/**/*.test.ts'],
    exclude: configDefaults.exclude,
    fileParallelism: false,
    sequence: { groupOrder: 1 },
  },
});
