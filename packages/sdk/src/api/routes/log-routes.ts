import type { LogsQuery, LogsResponse } from '../logs';
import { object, ref } from '../record-schemas';
import { defineRoute, followableAnswer, queryParams } from '../route';

/** The filters of `GET /logs` (see {@link LogsQuery}); the server checks `level`. */
export const LOGS_QUERY = {
  level: { type: 'string' },
  component: { type: 'string' },
  processId: { type: 'integer' },
  tail: { type: 'integer' },
  after: { type: 'integer' },
  follow: { type: 'switch' },
} as const;

/**
 * `/logs`: the server's recent log lines from a bounded buffer in its memory, secrets removed
 * (served by a server that keeps them; `@cyrnel/server` does). Admin keys only.
 */
export const LOG_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/logs',
    role: 'admin',
    summary:
      "This host's recent log lines, oldest first: the newest `tail` (default 100; every one after `after` when that is given) of those at `level` (`debug`, `info`, `warn`, `error`) or above, of `component`, about process `processId`, after `seq` `after`; with `follow` (or `Accept: text/event-stream`) followed live as Server-Sent Events (event `log`, `id` the line's `seq`)",
    params: {},
    query: queryParams<LogsQuery>(LOGS_QUERY),
    answer: followableAnswer<LogsResponse>(
      object(['items', 'capacity'], {
        items: { type: 'array', items: ref('LogLine') },
        capacity: { type: 'integer' },
      }),
    ),
    reasons: ['too_many_streams'],
  }),
};
