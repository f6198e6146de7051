import { sharedTestConfig } from '../../vitest.shared';
import { POSTGRES_TESTS } from './src/testing/index';

// Said once per run: the suites that need PostgreSQL then show as skipped.
if (!POSTGRES_TESTS.enabled) console.log(POSTGRES_TESTS.note);

export default sharedTestConfig;
