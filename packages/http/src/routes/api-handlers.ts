import type { KeyRing } from '@cyrnel/core';
import type { OpenApiResponse } from '@cyrnel/sdk/api';
import type { KeyStreams } from '../middleware/key-streams';
import type { LogSource, MetricsSource } from '../operations';
import { approvalHandlers } from './approval-handlers';
import { connectionHandlers } from './connection-handlers';
import { environmentHandlers } from './environment-handlers';
import { keyHandlers } from './key-handlers';
import { logHandlers } from './log-handlers';
import { metaHandlers } from './meta-handlers';
import { metricsHandlers } from './metrics-handlers';
import { moduleHandlers } from './module-handlers';
import { principalHandlers } from './principal-handlers';
import { processHandlers } from './process-handlers';
import { registryHandlers } from './registry-handlers';
import type { RouteContext } from './route-context';
import type { ApiHandlers } from './route-handler';
import { serviceHandlers } from './service-handlers';
import { toolHandlers } from './tool-handlers';

/** The resources served only when the app is given what they need. */
type Optional = 'keys' | 'principals' | 'metrics' | 'logs';

/** What the metrics' and the logs' routes read (without them `/metrics` and `/logs` are not served). */
export interface Operations {
  readonly metrics?: MetricsSource;
  readonly logs?: LogSource;
}

/** Options of {@link apiHandlers}. */
export interface ApiHandlerOptions extends Operations {
  /** The OpenAPI document `GET /openapi.json` answers. */
  readonly document: OpenApiResponse;
  /** The URL the document names in `servers`; default: the one each request reached. */
  readonly publicUrl?: string;
  /** The stored keys; without them `/keys` and `/principals` are not served. */
  readonly keys?: KeyRing;
  /** Closed when their key is deleted. */
  readonly keyStreams?: KeyStreams;
  /** Keep an admin among the stored keys (a server without a bootstrap admin key). Default true. */
  readonly keepAnAdmin?: boolean;
  /** Most followers of `GET /logs` at once. Default 16. */
  readonly maxLogFollowers?: number;
}

/**
 * One handler per route of `API_ROUTES`; the keys' and the principals' only with a key ring
 * (without one `/keys` and `/principals` are not served), the metrics' and the logs' only with
 * their sources. Deleting a key closes the streams `keyStreams` tracks for it.
 */
export function apiHandlers(
  ctx: RouteContext,
  options: ApiHandlerOptions,
): Omit<ApiHandlers, Optional> & Partial<Pick<ApiHandlers, Optional>> {
  const { keys, metrics, logs } = options;
  return {
    meta: metaHandlers(options.document, options.publicUrl, keys),
    modules: moduleHandlers(ctx),
    services: serviceHandlers(ctx),
    connections: connectionHandlers(ctx),
    registries: registryHandlers(ctx),
    processes: processHandlers(ctx),
    ...(keys
      ? {
          keys: keyHandlers(keys, ctx.host, {
            ...(options.keyStreams ? { streams: options.keyStreams } : {}),
            keepAnAdmin: options.keepAnAdmin ?? true,
          }),
          principals: principalHandlers(keys.principals),
        }
      : {}),
    tools: toolHandlers(ctx),
    approvals: approvalHandlers(ctx),
    environment: environmentHandlers(ctx),
    ...(metrics ? { metrics: metricsHandlers(metrics) } : {}),
    ...(logs ? { logs: logHandlers(ctx, logs, options.maxLogFollowers ?? 16) } : {}),
  };
}
