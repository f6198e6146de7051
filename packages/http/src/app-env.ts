import type { ModuleLogger } from '@cyrnel/sdk';

/** The structured logger the HTTP layer writes access logs and failures to. */
export type HttpLogger = Pick<ModuleLogger, 'info' | 'warn' | 'error'>;

/** Hono environment of the app: per-request variables set by the middleware. */
export interface AppEnv {
  Variables: {
    /** The request id echoed in `x-request-id`. */
    requestId: string;
  };
}
