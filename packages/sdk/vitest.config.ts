import { mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared';

// The type tests (`*.test-d.ts`) run with the others, also in the root's `pnpm test`.
export default mergeConfig(sharedTestConfig, { test: { typecheck: { enabled: true } } });
