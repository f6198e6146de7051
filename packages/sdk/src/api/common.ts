import type { JSONSchema } from '../json-schema';

/** `GET /health`. */
export interface HealthResponse {
  /** Always `ok` when the server answers. */
  status: 'ok';
}

/** Body of every `POST .../enabled` route. */
export interface SetEnabledRequest {
  /** The new flag (a boolean, strictly). */
  enabled: boolean;
}

/** `GET|PATCH .../config`. */
export interface ConfigResponse {
  /** The stored configuration, defaults applied. */
  config: Record<string, unknown>;
}

/** `GET .../secrets`: which secrets are set, never their values. */
export interface SecretsPresenceResponse {
  /** JSON pointers of the values that are set, e.g. `/token`. */
  present: string[];
}

/** `PATCH .../secrets`. */
export interface SecretsUpdatedResponse {
  /** Always true on success. */
  updated: true;
}

/** `GET .../config/schema` and `.../secrets/schema`: the JSON Schema itself. */
export type SchemaResponse = JSONSchema;

/** One RFC 6902 JSON Patch operation. */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'test'; path: string; value: unknown };

/** An RFC 6902 JSON Patch document: the body of config and secrets PATCH routes. */
export type JsonPatch = JsonPatchOperation[];

/** `GET /openapi.json`: the API as an OpenAPI 3.1 document; `info.version` is the HTTP API's version. */
export type OpenApiResponse = { openapi: string; info: { title: string; version: string } } & Record<
  string,
  unknown
>;
