import { cyrnelError } from '@cyrnel/core';

/** Parse a `:id` path parameter of the process routes: a positive integer, else 400. */
export function parseProcessId(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw cyrnelError('invalid_request', `process id must be a positive integer, got "${raw.slice(0, 40)}"`, {
      details: [{ path: 'id', message: 'must be a positive integer' }],
    });
  }
  return Number(raw);
}
