/**
 * Every stable error code of the HTTP API with its status. Listed once; never reused. A code is
 * the status class of an error; its {@link ERROR_REASONS reason} says precisely what went wrong.
 * `unsupported_media_type` is a request body that is not `application/json`, `too_many_streams`
 * the server's cap on concurrent event streams, `too_many_calls` a process beyond its budget of
 * calls (e.g. discovery); every 429 over HTTP carries `Retry-After` in seconds.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_processes: 429,
  too_many_streams: 429,
  too_many_calls: 429,
  quota_exceeded: 429,
  rate_limited: 429,
  internal: 500,
  upstream_error: 502,
  unavailable: 503,
  timeout: 504,
} as const;

/** A stable error code: the status class of an error (`invalid_request`, `conflict`, ...). */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Every stable error reason with the code it belongs to (so a reason determines its code and
 * status) and its meaning. Listed once; a reason is never reused for another failure. The
 * table users read is in the `@cyrnel/http` README ("Error reasons").
 *
 * @example
 * ```ts
 * import { ERROR_REASONS } from '@cyrnel/sdk/api';
 * ERROR_REASONS.tool_disabled.code; // 'conflict'
 * ```
 */
export const ERROR_REASONS = {
  invalid_request: { code: 'invalid_request', meaning: 'the request is malformed or a field is invalid' },
  invalid_parameters: {
    code: 'invalid_request',
    meaning: "the tool call's parameters do not match the tool's input schema",
  },
  invalid_definition: {
    code: 'invalid_request',
    meaning: 'the service definition is empty or its adapter refused it',
  },
  type_error: {
    code: 'invalid_request',
    meaning: 'the code has type errors (the diagnostics are in details); nothing was run',
  },
  missing_secret: { code: 'invalid_request', meaning: 'a required secret of a service or module is not set' },
  oauth_state_invalid: {
    code: 'invalid_request',
    meaning:
      'the OAuth callback names no pending authorization: its state is wrong, was already used or expired',
  },
  unauthorized: { code: 'unauthorized', meaning: 'no API key, or an unknown or revoked one' },
  forbidden: {
    code: 'forbidden',
    meaning: "the key's role, the Host or the Origin of the request is not allowed",
  },
  tool_blocked: {
    code: 'forbidden',
    meaning:
      "the tool's policy (or the key's scope, or the data-flow rule) blocks the call; nothing was sent",
  },
  connection_forbidden: {
    code: 'forbidden',
    meaning:
      "the connection belongs to another principal: a run uses only its principal's own or shared ones",
  },
  approval_denied: { code: 'forbidden', meaning: 'a person denied the approval the call waited for' },
  approval_expired: {
    code: 'forbidden',
    meaning: 'nobody decided the approval the call waited for before it expired',
  },
  outbound_refused: {
    code: 'forbidden',
    meaning: 'the outbound policy refused the address (private network, a refused port, cyrnel itself)',
  },
  route_not_found: { code: 'not_found', meaning: 'no route for this method and path' },
  service_not_found: { code: 'not_found', meaning: 'no service with this id' },
  tool_not_found: { code: 'not_found', meaning: 'no tool with this id in the service' },
  process_not_found: { code: 'not_found', meaning: 'no process with this id (visible to this key)' },
  module_not_found: { code: 'not_found', meaning: 'no module with this id' },
  key_not_found: { code: 'not_found', meaning: 'no API key with this id' },
  principal_not_found: { code: 'not_found', meaning: 'no principal with this id' },
  connection_not_found: {
    code: 'not_found',
    meaning: 'no connection with this name to the service (or one this key may not see)',
  },
  approval_not_found: {
    code: 'not_found',
    meaning: 'no approval (or plan) with this id, or one this key may not see',
  },
  principal_has_keys: {
    code: 'conflict',
    meaning: 'keys still belong to the principal: delete them (or let them go to another) first',
  },
  first_key_not_admin: {
    code: 'conflict',
    meaning:
      'no admin key is stored yet: the first key must be an admin key, or nobody could manage the server',
  },
  last_admin: {
    code: 'conflict',
    meaning: 'the key is the last admin key: create another admin key before revoking it',
  },
  connection_exists: { code: 'conflict', meaning: 'the service already has a connection with this name' },
  service_exists: { code: 'conflict', meaning: 'a service with this id is already installed' },
  service_disabled: { code: 'conflict', meaning: 'the service is disabled' },
  refresh_not_supported: {
    code: 'conflict',
    meaning: "the service's adapter cannot list its tools again (it has no refreshDefinition)",
  },
  tool_disabled: { code: 'conflict', meaning: 'the tool is disabled (its service is enabled)' },
  approval_decided: {
    code: 'conflict',
    meaning: 'the approval (or plan) was already decided, expired or used',
  },
  plan_mismatch: {
    code: 'conflict',
    meaning:
      'the code differs from the approved plan, the plan is not approved, or it was made by another key',
  },
  process_not_idle: { code: 'conflict', meaning: 'the process is queued or running' },
  process_not_running: { code: 'conflict', meaning: 'the process (or execution) is not running' },
  process_has_results: {
    code: 'conflict',
    meaning: 'the process has results: run it with force to clear them',
  },
  module_missing: { code: 'conflict', meaning: 'the module is registered but its package is gone' },
  module_exists: { code: 'conflict', meaning: 'a module with this id is already installed' },
  module_builtin: {
    code: 'conflict',
    meaning: 'built-in modules ship with the server: they cannot be installed over or updated',
  },
  incompatible_version: {
    code: 'conflict',
    meaning: "the version's engines.cyrnel range does not include this server's version",
  },
  not_from_registry: {
    code: 'conflict',
    meaning:
      'the service or module was installed directly, not from a registry or npm: nothing to update from',
  },
  registry_entry_not_found: {
    code: 'not_found',
    meaning:
      'the registry or npm registry has no such service, module or version (or none satisfies the range)',
  },
  payload_too_large: {
    code: 'payload_too_large',
    meaning: 'a body, code, envConfig, output or definition exceeds its size cap',
  },
  unsupported_media_type: {
    code: 'unsupported_media_type',
    meaning: 'the request body is not application/json',
  },
  too_many_processes: { code: 'too_many_processes', meaning: 'too many live processes; retry later' },
  too_many_calls: {
    code: 'too_many_calls',
    meaning: 'a process exceeded its budget of calls (pending calls, discovery calls)',
  },
  too_many_streams: { code: 'too_many_streams', meaning: 'too many open event streams; retry later' },
  storage_quota_exceeded: {
    code: 'quota_exceeded',
    meaning: "the key's processes hold more stored data than its quota; delete some or wait for retention",
  },
  rate_limited: {
    code: 'rate_limited',
    meaning: 'the key sent more requests than its rate allows; retry after the Retry-After seconds',
  },
  internal: { code: 'internal', meaning: 'an unexpected server failure (logged with the request id)' },
  upstream_failed: {
    code: 'upstream_error',
    meaning: 'an adapter, the environment, a remote API or a download failed',
  },
  upstream_unauthorized: {
    code: 'upstream_error',
    meaning: "the remote server refused the service's credentials (HTTP 401): check its secrets",
  },
  upstream_answer_too_large: {
    code: 'upstream_error',
    meaning: "the remote answer exceeds the process's budget of bytes, nesting depth or elements",
  },
  upstream_crashed: {
    code: 'upstream_error',
    meaning:
      "the service's server process exited or crashed during the call (its output is in the server log)",
  },
  tool_error: {
    code: 'upstream_error',
    meaning: 'the tool ran and reported a failure (an MCP result with isError); the message is its text',
  },
  integrity_mismatch: {
    code: 'upstream_error',
    meaning: "the downloaded bytes do not match the registry's hash or the npm package's integrity",
  },
  invalid_module_archive: {
    code: 'upstream_error',
    meaning: 'the module archive is not a gzipped tar of a module (module.json and its main file)',
  },
  invalid_registry: {
    code: 'upstream_error',
    meaning: 'the registry metadata (or npm package metadata) is not valid JSON of the expected shape',
  },
  service_regeneration_failed: {
    code: 'upstream_error',
    meaning:
      "the adapter's new version refused the service's stored definition (the service is left disabled)",
  },
  invoke_timeout: {
    code: 'upstream_error',
    meaning: 'the adapter did not answer within the invoke deadline',
  },
  module_setup_failed: { code: 'upstream_error', meaning: 'the module failed to set up (activate)' },
  module_unavailable: {
    code: 'unavailable',
    meaning: 'the module the request needs (environment or adapter) is not active',
  },
  module_setup_timeout: {
    code: 'unavailable',
    meaning: 'the module did not finish instantiate() or setup() within its deadline',
  },
  service_unavailable: {
    code: 'unavailable',
    meaning: 'the service is enabled but its adapter could not hydrate it (see its error)',
  },
  module_torn_down: { code: 'unavailable', meaning: 'the module was torn down while serving the request' },
  shutting_down: { code: 'unavailable', meaning: 'the server is shutting down' },
  process_interrupted: {
    code: 'unavailable',
    meaning: 'the server stopped or shut down before the process finished',
  },
  process_killed: {
    code: 'conflict',
    meaning: 'the process was canceled by a kill request (or deleted before it ran)',
  },
  key_revoked: {
    code: 'unauthorized',
    meaning: "the process's API key was deleted while it was queued or running",
  },
  sandbox_crashed: {
    code: 'unavailable',
    meaning:
      'the sandbox process running the code died (its memory exhausted or a crash); the code was stopped',
  },
  sandbox_collateral: {
    code: 'unavailable',
    meaning:
      'another run of the same key sharing the sandbox process crashed it after this run had made tool calls or written output; run it again',
  },
  process_timeout: { code: 'timeout', meaning: 'the process ran past its timeout' },
  wait_timeout: { code: 'timeout', meaning: 'the process did not finish within the wait bound' },
  download_timeout: { code: 'timeout', meaning: 'the definition download timed out' },
} as const satisfies Record<string, { code: ErrorCode; meaning: string }>;

/** A stable error reason: what precisely went wrong (`service_disabled`, `too_many_calls`, ...). */
export type ErrorReason = keyof typeof ERROR_REASONS;

/** The code a reason belongs to. */
export type ErrorCodeOf<R extends ErrorReason> = (typeof ERROR_REASONS)[R]['code'];

/** True when `value` is one of the {@link ERROR_REASONS}. */
export function isErrorReason(value: unknown): value is ErrorReason {
  return typeof value === 'string' && Object.hasOwn(ERROR_REASONS, value);
}

/** The error envelope of every non-2xx JSON response. */
export interface ErrorBody {
  /** Human-readable message naming the problem. */
  error: string;
  /** Stable machine-readable status class. */
  code: ErrorCode;
  /** Stable machine-readable reason: what precisely went wrong (one of {@link ERROR_REASONS}). */
  reason: ErrorReason;
  /** Extra data, e.g. validation errors. */
  details?: unknown;
}

/** One schema validation problem, as carried in `details` of `invalid_request` errors. */
export interface ValidationIssue {
  /** JSON pointer (or field name) of the offending value. */
  path: string;
  /** What is wrong with it. */
  message: string;
}
