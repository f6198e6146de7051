import { defineRoute, textAnswer } from '../route';

/**
 * `/metrics`: the server's metrics in the Prometheus text format (served by a server that keeps
 * metrics; `@cyrnel/server` does). Admin keys only; a server may also serve it without a key on
 * an address of its own (`--metrics-listen`).
 */
export const METRICS_ROUTES = {
  text: defineRoute({
    method: 'GET',
    path: '/metrics',
    role: 'admin',
    summary:
      "This host's metrics in the Prometheus text format: processes, queue, tool calls, upstreams, sandboxes, workers, approvals, the database and the event loop",
    params: {},
    answer: textAnswer(),
    reasons: [],
  }),
};
