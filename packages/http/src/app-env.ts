import type { ModuleLogger } from '@cyrnel/sdk';
import type { KeyRole } from '@cyrnel/sdk/api';

/** The structured logger the HTTP layer writes access logs and failures to. */
export type HttpLogger = Pick<ModuleLogger, 'info' | 'warn' | 'error'>;

/** The authenticated caller of a request. */
export interface Caller {
  /** The stored key's id; null for the `apiKey` option's key and for a server without keys. */
  readonly keyId: string | null;
  /** Whose connections its processes use: the stored key's principal; null otherwise (shared ones only). */
  readonly principalId: string | null;
  /**
   * What the caller may do: `admin` everything; `agent` run processes (its own) and read tools;
   * `approver` what an agent may, plus reading and deciding approvals.
   */
  readonly role: KeyRole;
  /**
   * Set for a caller signed in with an OAuth access token instead of a key: its identity
   * (`<issuer>#<sub>`). Its `keyId` is then `principal:<id>`, the owner of its principal's processes.
   */
  readonly oauthSubject?: string;
  /** Set for the `apiKey` option's key (the bootstrap admin key), which has no `keyId`. */
  readonly bootstrap?: true;
}

/** Hono environment of the app: per-request variables set by the middleware. */
export interface AppEnv {
  Variables: {
    /** The request id echoed in `x-request-id`. */
    requestId: string;
    /** Who is asking, set by the bearer middleware (an open server's requests are `admin`). */
    caller: Caller;
  };
}
