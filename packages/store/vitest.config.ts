import { sharedTestConfig } from '../../vitest.shared';
import { notePostgresTests } from './src/testing/index';

// Says once per run when the suites that need PostgreSQL are left out (they show as skipped).
notePostgresTests();

export default sharedTestConfig;
