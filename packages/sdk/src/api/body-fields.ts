import type { DecideApprovalRequest } from './approvals';
import type { SetEnabledRequest } from './common';
import type {
  AuthorizeConnectionRequest,
  CreateConnectionRequest,
  UpdateConnectionRequest,
} from './connections';
import type { CreateKeyRequest } from './keys';
import type { InstallModuleRequest, PatchModuleRequest } from './modules';
import type { ServicePolicy } from './policies';
import type { CreatePrincipalRequest } from './principals';
import { type CreateProcessRequest, type RunProcessRequest, TYPE_CHECK_MODES } from './processes';
import type { InstallFromRegistryRequest, InstallServiceRequest, UpdateServiceRequest } from './services';

/** The JSON types a body field may be declared with. */
export type FieldType = 'string' | 'boolean' | 'object' | 'array' | 'positiveInteger';

/** How one field of a JSON object body is checked. */
export interface FieldSpec {
  /** Expected JSON type. */
  readonly type: FieldType;
  /** Missing → 400. */
  readonly required?: boolean;
  /** `null` accepted. */
  readonly nullable?: boolean;
  /** Longest string accepted. */
  readonly maxLength?: number;
  /** The only strings accepted (documented as the field's `enum`). */
  readonly enum?: readonly string[];
}

/**
 * A flat object schema: every allowed field with its spec; any other field is refused. The host
 * checks request bodies against these (`validateBody` of `@cyrnel/core`) and the OpenAPI document
 * describes them from the same objects, so what is documented is what is enforced.
 */
export type BodySchema = Readonly<Record<string, FieldSpec>>;

/** The field type a TypeScript property type is checked as. */
type FieldTypeOf<T> =
  NonNullable<T> extends string
    ? 'string'
    : NonNullable<T> extends boolean
      ? 'boolean'
      : NonNullable<T> extends number
        ? 'positiveInteger'
        : NonNullable<T> extends readonly unknown[]
          ? 'array'
          : 'object';

/**
 * The body schema of a request type `B`: a field for each property, of its JSON type, required
 * and nullable exactly when the property is. Body schemas are declared `satisfies
 * BodyFields<TheRequest>`, so the wire type and the schema the host checks cannot drift apart.
 */
export type BodyFields<B> = {
  readonly [K in keyof B]-?: {
    readonly type: FieldTypeOf<B[K]>;
    readonly maxLength?: number;
    readonly enum?: readonly Extract<NonNullable<B[K]>, string>[];
  } & (object extends Pick<B, K> ? { readonly required?: false } : { readonly required: true }) &
    (null extends B[K] ? { readonly nullable: true } : { readonly nullable?: false });
};

/** Body of every `POST .../enabled` route: `{enabled: boolean}`, strictly. */
export const ENABLED_BODY = {
  enabled: { type: 'boolean', required: true },
} as const satisfies BodyFields<SetEnabledRequest>;

/** Body of routes that take no fields (`{}` or an empty body only). */
export const EMPTY_BODY = {} as const satisfies BodySchema;

/** Longest name of an API key. */
export const MAX_KEY_NAME_LENGTH = 100;

/** `POST /keys`. */
export const CREATE_KEY_BODY = {
  name: { type: 'string', required: true, maxLength: MAX_KEY_NAME_LENGTH },
  role: { type: 'string', required: true },
  scope: { type: 'object', nullable: true },
  policy: { type: 'object', nullable: true },
  principal: { type: 'string', maxLength: 100 },
} as const satisfies BodyFields<CreateKeyRequest>;

/** Longest name of a principal. */
export const MAX_PRINCIPAL_NAME_LENGTH = 100;

/** `POST /principals`. */
export const CREATE_PRINCIPAL_BODY = {
  name: { type: 'string', required: true, maxLength: MAX_PRINCIPAL_NAME_LENGTH },
  kind: { type: 'string' },
} as const satisfies BodyFields<CreatePrincipalRequest>;

/** Longest name of a connection. */
export const MAX_CONNECTION_NAME_LENGTH = 64;

/** `POST /services/:serviceId/connections`. */
export const CREATE_CONNECTION_BODY = {
  name: { type: 'string', required: true, maxLength: MAX_CONNECTION_NAME_LENGTH },
  owner: { type: 'string', nullable: true, maxLength: 100 },
  secrets: { type: 'object' },
} as const satisfies BodyFields<CreateConnectionRequest>;

/** `PATCH /services/:serviceId/connections/:name`. */
export const UPDATE_CONNECTION_BODY = {
  owner: { type: 'string', nullable: true, maxLength: 100 },
  secrets: { type: 'object' },
} as const satisfies BodyFields<UpdateConnectionRequest>;

/** `POST /services/:serviceId/connections/:name/authorize`. */
export const AUTHORIZE_CONNECTION_BODY = {
  scheme: { type: 'string', maxLength: 200 },
  flow: { type: 'string', maxLength: 40 },
  clientId: { type: 'string', maxLength: 1000 },
  clientSecret: { type: 'string', maxLength: 4000 },
  scopes: { type: 'array' },
  resource: { type: 'string', maxLength: 2000 },
} as const satisfies BodyFields<AuthorizeConnectionRequest>;

/** `PUT /services/:serviceId/policy`: the whole policy of a service (the host checks each value). */
export const SERVICE_POLICY_BODY = {
  default: { type: 'string' },
  byAnnotation: { type: 'object' },
  tools: { type: 'object' },
  labels: { type: 'object' },
  dataFlow: { type: 'string' },
} as const satisfies BodyFields<ServicePolicy>;

/** Longest note of an approval decision. */
export const MAX_APPROVAL_NOTE_LENGTH = 1000;

/** `POST /approvals/:id` and `POST /approvals/plans/:planId`. */
export const DECIDE_APPROVAL_BODY = {
  decision: { type: 'string', required: true },
  note: { type: 'string', maxLength: MAX_APPROVAL_NOTE_LENGTH },
  remember: { type: 'string' },
} as const satisfies BodyFields<DecideApprovalRequest>;

/** `POST /processes` as the host takes it: its JSON types (the host bounds the values). */
export const CREATE_PROCESS_BODY = {
  code: { type: 'string', required: true },
  ref: { type: 'string' },
  timeoutMs: { type: 'positiveInteger', nullable: true },
  envConfig: { type: 'object' },
  autorun: { type: 'boolean' },
  plan: { type: 'boolean' },
  check: { type: 'boolean' },
  typecheck: { type: 'string', enum: TYPE_CHECK_MODES },
  planId: { type: 'string', maxLength: 100 },
  connections: { type: 'object' },
} as const satisfies BodyFields<Omit<CreateProcessRequest, 'wait'>>;

/** `POST /processes/:id/signals/run`. */
export const RUN_PROCESS_BODY = {
  force: { type: 'boolean' },
} as const satisfies BodyFields<RunProcessRequest>;

/** `POST /services`: a definition by URL or inline (exactly one of them; the route checks that). */
export const SERVICE_INSTALL_BODY = {
  id: { type: 'string', required: true },
  adapter: { type: 'string', required: true },
  url: { type: 'string' },
  definition: { type: 'string' },
  config: { type: 'object' },
  secrets: { type: 'object' },
  enabled: { type: 'boolean' },
} as const satisfies BodyFields<InstallServiceRequest>;

/** `PATCH /services/:serviceId`: a new definition by URL or inline. */
export const SERVICE_UPDATE_BODY = {
  url: { type: 'string' },
  definition: { type: 'string' },
} as const satisfies BodyFields<UpdateServiceRequest>;

/** `POST /services/install`: a service from a registry entry. */
export const INSTALL_FROM_REGISTRY_BODY = {
  source: { type: 'string', required: true },
  version: { type: 'string' },
  id: { type: 'string' },
  adapter: { type: 'string' },
  config: { type: 'object' },
  secrets: { type: 'object' },
  enabled: { type: 'boolean' },
} as const satisfies BodyFields<InstallFromRegistryRequest>;

/** `POST /modules/install`: a module from npm or a registry. */
export const INSTALL_MODULE_BODY = {
  source: { type: 'string', required: true },
  version: { type: 'string' },
  autoUpdate: { type: 'boolean' },
} as const satisfies BodyFields<InstallModuleRequest>;

/** `PATCH /modules/:moduleId`: how an installed module is kept up to date. */
export const PATCH_MODULE_BODY = {
  version: { type: 'string', nullable: true },
  autoUpdate: { type: 'boolean' },
} as const satisfies BodyFields<PatchModuleRequest>;
