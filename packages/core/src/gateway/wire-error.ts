import { isCyrnelError } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';
import type { WireError } from './gateway-protocol';

/** A failure as it crosses a thread or socket: a coded error keeps its fields, anything else is `upstream_failed`. */
export function toWireError(error: unknown): WireError {
  const typed = isCyrnelError(error)
    ? error
    : cyrnelError('upstream_failed', error instanceof Error ? error.message : String(error));
  return { status: typed.status, code: typed.code, reason: typed.reason, message: typed.message };
}
