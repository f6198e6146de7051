import { configDefaults, defineProject } from 'vitest/config';

/**
 * Files at once in one Vitest run: `pnpm test` runs every package's files in one pool. The suite
 * is bound by CPU (its files start servers, sandbox children and compilers): on a 2-core machine
 * two at once took 267–287 s, three 265–305 s and 20 % more CPU, four 303 s. Test servers fork no
 * sandbox child before their first run (`startTestServer`, `--warm-sandboxes 0`): forking the
 * pool's two at every start was half the CPU time of the files that start servers (eight of
 * `apps/server`'s files: 65 → 32 CPU-seconds).
 * `CYRNEL_TEST_WORKERS` sets another number (1 runs one file at a time).
 */
export const TEST_WORKERS = Number(process.env.CYRNEL_TEST_WORKERS || 2);

/**
 * Test settings every package shares. isolated-vm needs `--no-node-snapshot` on Node 20+,
 * and it does not mix with worker threads, so every test file runs in a forked process.
 *
 * Files run in parallel, and a fork runs one file after another without loading the packages
 * again (`isolate: false`: loading them for every file was a quarter of the suite's CPU time). So a test
 * helper keeps no per-file state at module level: what a file needs it creates in that file's
 * hooks (`useServer`, `useFileDatabase`), and a file restores what it changes of the process.
 * The timeouts are for a loaded machine: they catch a test that hangs, not one that is slow
 * because the machine is busy. Tests that measure latency live in `test/timing/` and run alone
 * (`vitest.timing.config.ts`).
 */
export const sharedTestConfig = defineProject({
  test: {
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/timing/**'],
    isolate: false,
    maxWorkers: TEST_WORKERS,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
