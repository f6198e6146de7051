import {
  EXECUTION_EXIT_STATES,
  type ExecutionExitState,
  PROCESS_STATES,
  type ProcessState,
} from '@cyrnel/sdk';
import type { ListResponse, ProcessListQuery, ProcessSummary } from '@cyrnel/sdk/api';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import { cyrnelError } from '../errors';
import { optionalOneOf, optionalString, queryObject } from '../validation/input';
import type { ProcessStorageQuery } from './process-storage';

function invalid(field: string, message: string): never {
  throw cyrnelError('invalid_request', `${field} ${message}`, { details: [{ path: field, message }] });
}

/** Validate `GET /processes` filters and paging; `limit` above the maximum is clamped. */
export function toStorageQuery(query?: ProcessListQuery): ProcessStorageQuery {
  const { limit, cursor, state, exitState, ref, keyId } = queryObject(query) as ProcessListQuery;
  optionalOneOf(state, PROCESS_STATES, 'state');
  optionalOneOf(exitState, EXECUTION_EXIT_STATES, 'exitState');
  optionalString(ref, 'ref');
  optionalString(keyId, 'keyId');
  let beforeId: number | undefined;
  if (cursor !== undefined) {
    const [id = ''] = decodeCursor(cursor, 1);
    if (!/^[1-9][0-9]{0,15}$/.test(id)) invalid('cursor', 'is invalid');
    beforeId = Number(id);
  }
  return {
    limit: pageLimit(limit),
    ...(beforeId === undefined ? {} : { beforeId }),
    ...(state === undefined ? {} : { state: state as ProcessState }),
    ...(exitState === undefined ? {} : { exitState: exitState as ExecutionExitState }),
    ...(ref === undefined ? {} : { ref }),
    ...(keyId === undefined ? {} : { keyId }),
  };
}

/** Cut `rows` (fetched with one extra) into a page whose cursor points below its last id. */
export function toProcessPage(
  rows: readonly ProcessSummary[],
  limit: number,
  toItem: (row: ProcessSummary) => ProcessSummary,
): ListResponse<ProcessSummary> {
  return toPage(rows, limit, (row) => [String(row.id)], toItem);
}
