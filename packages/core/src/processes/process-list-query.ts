import {
  type ExecutionExitState,
  isExecutionExitState,
  isProcessState,
  type ProcessState,
} from '@cyrnel/sdk';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type ProcessListQuery } from '@cyrnel/sdk/api';
import { ValidationError } from '../errors';
import type { ProcessStorageQuery } from './process-storage';

const CURSOR_PREFIX = 'p1.';

/** The opaque cursor pointing below process `id`. */
export function encodeProcessCursor(id: number): string {
  return CURSOR_PREFIX + Buffer.from(String(id)).toString('base64url');
}

function invalid(field: string, message: string): never {
  throw new ValidationError(`${field} ${message}`, [{ path: field, message }]);
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== 'string' || !cursor.startsWith(CURSOR_PREFIX)) invalid('cursor', 'is not valid');
  const text = Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString();
  const id = Number(text);
  if (!/^[1-9][0-9]*$/.test(text) || !Number.isSafeInteger(id)) invalid('cursor', 'is not valid');
  return id;
}

/** Validate `GET /processes` filters and paging; `limit` above the maximum is clamped. */
export function toStorageQuery(query: ProcessListQuery = {}): ProcessStorageQuery {
  const { limit, cursor, state, exitState, ref } = query;
  let pageSize = DEFAULT_PAGE_LIMIT;
  if (limit !== undefined) {
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit <= 0) {
      invalid('limit', 'must be a positive integer');
    }
    pageSize = Math.min(limit, MAX_PAGE_LIMIT);
  }
  if (state !== undefined && !isProcessState(state)) invalid('state', 'is not a process state');
  if (exitState !== undefined && !isExecutionExitState(exitState)) {
    invalid('exitState', 'is not an exit state');
  }
  if (ref !== undefined && typeof ref !== 'string') invalid('ref', 'must be a string');
  return {
    limit: pageSize,
    ...(cursor === undefined ? {} : { beforeId: decodeCursor(cursor) }),
    ...(state === undefined ? {} : { state: state as ProcessState }),
    ...(exitState === undefined ? {} : { exitState: exitState as ExecutionExitState }),
    ...(ref === undefined ? {} : { ref }),
  };
}
