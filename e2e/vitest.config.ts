import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { defineProject, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../vitest.shared';

// Said once per run: the suites that need PostgreSQL then show as skipped.
if (!POSTGRES_TESTS.enabled) console.log(POSTGRES_TESTS.note);

// Every file starts the real server binary and third-party programs; one file at a time keeps
// two cores from starving them (the shared timeouts leave start-up room on a loaded machine).
export default mergeConfig(
  sharedTestConfig,
  defineProject({
    test: {
      include: ['test/**/*.test.ts'],
      fileParallelism: false,
    },
  }),
);
