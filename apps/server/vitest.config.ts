import { notePostgresTests } from '@cyrnel/store/testing';
import { sharedTestConfig } from '../../vitest.shared';

// Says once per run when the suites that need PostgreSQL are left out (they show as skipped).
notePostgresTests();

export default sharedTestConfig;
