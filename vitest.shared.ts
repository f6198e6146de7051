import { configDefaults, defineProject } from 'vitest/config';

/**
 * Test settings every package shares. isolated-vm needs `--no-node-snapshot` on Node 20+,
 * and it does not mix with worker threads, so every test file runs in a forked process.
 * Tests that measure latency live in `test/timing/` and run alone (`vitest.timing.config.ts`).
 */
export const sharedTestConfig = defineProject({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/timing/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
