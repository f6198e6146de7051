import type { SuiteContext } from './suite-context.ts';

/** The real server, spawned from its built binary, measured against the floors and the peer. */
export async function runCyrnel(_ctx: SuiteContext): Promise<void> {
  throw new Error('not implemented yet');
}
