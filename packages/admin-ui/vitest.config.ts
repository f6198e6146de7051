import { sharedTestConfig } from '../../vitest.shared';

// The checks the settings forms run in the browser (JSON, schemas, the patch) are plain functions,
// tested here; the pages themselves in real Chromium (`e2e/test/admin-ui*.test.ts`).
export default sharedTestConfig;
