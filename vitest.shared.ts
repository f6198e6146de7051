import { defineProject } from 'vitest/config';

/**
 * Test settings every package shares. isolated-vm needs `--no-node-snapshot` on Node 20+,
 * and it does not mix with worker threads, so every test file runs in a forked process.
 */
export const sharedTestConfig = defineProject({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
