import { notePostgresTests } from '@cyrnel/store/testing';
import { defineProject, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../vitest.shared';

// Says once per run when the suites that need PostgreSQL are left out (they show as skipped).
notePostgresTests();

// Every file starts the real server binary and third-party programs, and waits on them much of
// the time: two files at once (85 s one at a time, 62 s two at once, no better three at once on
// a 2-core machine); the shared timeouts leave start-up room on a loaded machine.
export default mergeConfig(
  sharedTestConfig,
  defineProject({
    test: {
      include: ['test/**/*.test.ts'],
      maxWorkers: 2,
    },
  }),
);
