import { setFlagsFromString } from 'node:v8';

/** V8's own growth factor of the young generation (each growth doubles it, up to 16 MB a semi-space). */
export const DEFAULT_GROWTH_FACTOR = 2;

/** Young-generation flags an operator may give (`node --max-semi-space-size=…`, NODE_OPTIONS): theirs win. */
const OPERATOR_FLAGS = /--(?:(?:max|min)[-_])?semi[-_]space[-_]/;

/** Options of {@link keepYoungGenerationSmallWhileStarting}; the defaults are the process's. */
export interface YoungGenerationOptions {
  readonly execArgv?: readonly string[];
  readonly nodeOptions?: string;
  /** `v8.setFlagsFromString`. */
  readonly setFlags?: (flags: string) => void;
}

/**
 * Keep V8's young generation at its initial size (1 MB a semi-space) while the server starts,
 * and let it grow as usual from `release()` on. Loading the server's modules keeps many objects
 * alive at once, which makes V8 double the young generation step by step to 8–16 MB a
 * semi-space; both semi-spaces then stay in the RSS of a server that does nothing (≈ 15–30 MB)
 * until V8's memory reducer shrinks them after a quiet spell. Held small, the start's survivors
 * go to the old generation a little sooner instead, which costs a few more scavenges while
 * starting and nothing after: from `release()` on, load grows the young generation exactly as
 * before. Nothing is changed when the operator gave young-generation flags of their own.
 *
 * @example
 * ```ts
 * const release = keepYoungGenerationSmallWhileStarting();
 * const server = await startServer(config);
 * release();
 * ```
 */
export function keepYoungGenerationSmallWhileStarting(options: YoungGenerationOptions = {}): () => void {
  const execArgv = options.execArgv ?? process.execArgv;
  const nodeOptions = options.nodeOptions ?? process.env.NODE_OPTIONS ?? '';
  const setFlags = options.setFlags ?? setFlagsFromString;
  if (execArgv.some((arg) => OPERATOR_FLAGS.test(arg)) || OPERATOR_FLAGS.test(nodeOptions)) return () => {};
  setFlags('--semi-space-growth-factor=1');
  let released = false;
  return () => {
    if (released) return;
    released = true;
    setFlags(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
  };
}
