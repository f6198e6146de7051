/**
 * The one error model lives in `@cyrnel/sdk` (so modules throw the same coded errors); core
 * re-exports it for its own callers. Build errors with `cyrnelError(reason, message, options)`.
 */
export { CyrnelError, type CyrnelErrorOptions, cyrnelError, isCyrnelError } from '@cyrnel/sdk';
