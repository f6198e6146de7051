import { mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared';

// One test file at a time: several files assert that /health answers within 100 ms during an
// attack, and the server under test shares its file's process. A neighbour file saturating the
// second core (sandbox children, big installs) would measure the machine, not the server.
export default mergeConfig(sharedTestConfig, { test: { fileParallelism: false } });
