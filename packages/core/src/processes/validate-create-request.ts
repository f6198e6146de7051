import { isValidIdentifier, MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { CREATE_PROCESS_BODY, type CreateProcessRequest, type TypeCheckMode } from '@cyrnel/sdk/api';
import { CONNECTION_NAME } from '../connections/connection-records';
import { cyrnelError } from '../errors';
import { validateBody } from '../validation/body-schema';
import { optionalBoolean, optionalObject, requireString } from '../validation/input';
import type { ProcessLimits } from './process-limits';

/** Longest accepted `ref` label, in characters. */
export const MAX_REF_LENGTH = 200;

/**
 * Ceiling of the `maxTimeoutMs` limit (about 24.8 days): the longest delay a Node timer honours,
 * so the host's deadline can always be armed as asked. The limit itself defaults to 5 minutes.
 */
export const MAX_TIMEOUT_MS = MAX_TIMER_DELAY_MS;

/** A create request after validation, defaults applied. */
export interface ValidCreateRequest {
  readonly code: string;
  readonly ref: string | null;
  /** The request's `timeoutMs`, or the default when it gave none (absent or null). */
  readonly timeoutMs: number;
  readonly envConfig: Record<string, unknown>;
  readonly autorun: boolean;
  /** Answer the plan instead of running. */
  readonly plan: boolean;
  /** Run this approved plan's code. */
  readonly planId: string | null;
  /** Answer the code's type errors instead of running. */
  readonly check: boolean;
  /** `reject`: refuse code with type errors before anything is stored or run. */
  readonly typecheck: TypeCheckMode;
  /** The connection per service the request named (service id → connection name). */
  readonly connections: Record<string, string>;
}

/** Most services one create request may name a connection for. */
export const MAX_NAMED_CONNECTIONS = 100;

/** The `connections` field: service ids to connection names, checked in shape (not yet against the catalog). */
function validConnections(value: unknown): Record<string, string> {
  const named = optionalObject(value, 'connections') ?? {};
  const entries = Object.entries(named);
  if (entries.length > MAX_NAMED_CONNECTIONS)
    invalid('connections', `must name at most ${MAX_NAMED_CONNECTIONS} services`);
  for (const [serviceId, name] of entries) {
    if (!isValidIdentifier(serviceId))
      invalid('connections', `key ${JSON.stringify(String(serviceId).slice(0, 100))} is not a service id`);
    if (typeof name !== 'string' || !CONNECTION_NAME.test(name))
      invalid(`connections.${serviceId}`, 'must be a connection name');
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

function invalid(field: string, message: string): never {
  throw cyrnelError('invalid_request', `${field} ${message}`, { details: [{ path: field, message }] });
}

/** Validate `POST /processes` input: its shape strictly (unknown fields refused), then field by field; errors name the field. */
export function validateCreateRequest(
  request: unknown,
  limits: Pick<ProcessLimits, 'maxCodeBytes' | 'maxEnvConfigBytes' | 'defaultTimeoutMs' | 'maxTimeoutMs'>,
): ValidCreateRequest {
  const { code, ref, timeoutMs, envConfig, autorun, plan, planId, connections, check, typecheck } =
    validateBody<Record<keyof CreateProcessRequest, unknown>>(request, CREATE_PROCESS_BODY);
  const source = requireString(code, 'code');
  if (source.trim() === '') invalid('code', 'must not be empty');
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (source.length * 3 > limits.maxCodeBytes && Buffer.byteLength(source) > limits.maxCodeBytes) {
    throw cyrnelError('payload_too_large', `code exceeds ${limits.maxCodeBytes} bytes`);
  }
  const label = ref === undefined || ref === null ? null : requireString(ref, 'ref');
  if (label !== null && label.length > MAX_REF_LENGTH) {
    invalid('ref', `must be at most ${MAX_REF_LENGTH} characters`);
  }
  if (timeoutMs !== undefined && timeoutMs !== null) {
    if (
      typeof timeoutMs !== 'number' ||
      !Number.isSafeInteger(timeoutMs) ||
      timeoutMs <= 0 ||
      timeoutMs > limits.maxTimeoutMs
    ) {
      invalid(
        'timeoutMs',
        `must be a positive integer of at most ${limits.maxTimeoutMs} (the server's maximum timeout), or null for the default`,
      );
    }
  }
  const config = optionalObject(envConfig, 'envConfig') ?? {};
  if (Buffer.byteLength(JSON.stringify(config)) > limits.maxEnvConfigBytes) {
    throw cyrnelError('payload_too_large', `envConfig exceeds ${limits.maxEnvConfigBytes} bytes of JSON`, {
      details: [{ path: 'envConfig', message: `must be at most ${limits.maxEnvConfigBytes} bytes of JSON` }],
    });
  }
  return {
    code: source,
    ref: label,
    // Null is the default, not "no deadline": every run must end by `maxTimeoutMs`, or an
    // environment that ignores its deadline would hold its slot forever.
    timeoutMs:
      timeoutMs === undefined || timeoutMs === null ? limits.defaultTimeoutMs : (timeoutMs as number),
    envConfig: config,
    autorun: optionalBoolean(autorun, 'autorun') ?? true,
    ...planFields(plan, planId, autorun),
    ...checkFields(check, typecheck, { plan, planId, autorun }),
    connections: validConnections(connections),
  };
}

/** `check` and `typecheck`: a check runs nothing, so it takes no plan, no run option and no mode. */
function checkFields(
  check: unknown,
  typecheck: unknown,
  others: { plan: unknown; planId: unknown; autorun: unknown },
): { check: boolean; typecheck: TypeCheckMode } {
  const checking = optionalBoolean(check, 'check') ?? false;
  const mode = (typecheck ?? 'off') as TypeCheckMode;
  if (checking) {
    const given = {
      plan: others.plan === true ? true : undefined,
      planId: others.planId,
      autorun: others.autorun,
      typecheck,
    };
    for (const [field, value] of Object.entries(given)) {
      if (value !== undefined && value !== null) invalid(field, 'cannot be combined with check: true');
    }
  }
  return { check: checking, typecheck: mode };
}

/** `plan` and `planId`: one or the other, a plan never with `autorun`. */
function planFields(
  plan: unknown,
  planId: unknown,
  autorun: unknown,
): { plan: boolean; planId: string | null } {
  const planning = optionalBoolean(plan, 'plan') ?? false;
  const id =
    planId === undefined || planId === null ? null : requireString(planId, 'planId', { nonEmpty: true });
  if (planning && id !== null) invalid('planId', 'cannot be combined with plan: true');
  if (planning && autorun !== undefined) invalid('autorun', 'cannot be combined with plan: true');
  return { plan: planning, planId: id };
}
