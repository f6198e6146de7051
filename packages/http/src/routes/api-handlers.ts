import type { KeyRing } from '@cyrnel/core';
import type { OpenApiResponse } from '@cyrnel/sdk/api';
import type { KeyStreams } from '../middleware/key-streams';
import { approvalHandlers } from './approval-handlers';
import { connectionHandlers } from './connection-handlers';
import { environmentHandlers } from './environment-handlers';
import { keyHandlers } from './key-handlers';
import { metaHandlers } from './meta-handlers';
import { moduleHandlers } from './module-handlers';
import { principalHandlers } from './principal-handlers';
import { processHandlers } from './process-handlers';
import { registryHandlers } from './registry-handlers';
import type { RouteContext } from './route-context';
import type { ApiHandlers } from './route-handler';
import { serviceHandlers } from './service-handlers';
import { toolHandlers } from './tool-handlers';

/** Options of {@link apiHandlers}. */
export interface ApiHandlerOptions {
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
}

/**
 * One handler per route of `API_ROUTES`; the keys' and the principals' only with a key ring
 * (without one `/keys` and `/principals` are not served). Deleting a key closes the streams `keyStreams` tracks for it.
 */
export function apiHandlers(
  ctx: RouteContext,
  options: ApiHandlerOptions,
): Omit<ApiHandlers, 'keys' | 'principals'> & Partial<Pick<ApiHandlers, 'keys' | 'principals'>> {
  const { keys } = options;
  return {
    meta: metaHandlers(options.document, options.publicUrl),
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
  };
}
