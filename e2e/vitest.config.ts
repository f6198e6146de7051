import { defineProject, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../vitest.shared';

// Every file starts the real server binary and third-party programs; one file at a time keeps
// two cores from starving them, and start-up gets generous hook timeouts.
export default mergeConfig(
  sharedTestConfig,
  defineProject({
    test: {
      include: ['test/**/*.test.ts'],
      fileParallelism: false,
      testTimeout: 60_000,
      hookTimeout: 90_000,
    },
  }),
);
