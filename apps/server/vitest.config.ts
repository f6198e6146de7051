import { notePostgresTests } from '@cyrnel/store/testing';
import { defineProject, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared';

// Says once per run when the suites that need PostgreSQL are left out (they show as skipped).
notePostgresTests();

export default mergeConfig(
  sharedTestConfig,
  defineProject({
    test: {
      // Traced test servers export every 100 ms instead of every 5 s: the tracing suites wait for
      // the spans of each test at the collector, and 5 s a test was most of their time.
      env: { OTEL_BSP_SCHEDULE_DELAY: '100' },
    },
  }),
);
