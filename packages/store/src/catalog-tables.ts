import type { Generated } from 'kysely';

/** Row of `modules` (migration 0001). Booleans are 0/1 integers, portable across SQLite and PostgreSQL. */
export interface ModulesTable {
  id: string;
  type: string;
  name: string;
  description: string;
  version: string;
  is_builtin: number;
  enabled: number;
  missing: number;
  created_at: string;
  updated_at: string;
}

/** Row of `module_config` and `service_config`: the JSON text of the object. */
export interface ConfigTable {
  owner_id: string;
  config: string;
  updated_at: string;
}

/** Row of `module_secrets`: AES-256-GCM ciphertext, never plaintext. */
export interface SecretsTable {
  owner_id: string;
  key_id: string;
  iv: string;
  tag: string;
  ciphertext: string;
  updated_at: string;
}

/** Row of `services`. JSON columns are text. */
export interface ServicesTable {
  id: string;
  name: string;
  description: string;
  adapter: string;
  enabled: number;
  hash: string;
  source: string | null;
  /** The definition text; on SQLite a zstd BLOB since the store compresses it (`compressedDefinitions`). */
  definition: string | Uint8Array;
  config_schema: string;
  secrets_schema: string;
  adapter_domain: string;
  /** JSON text of the shared schemas (migration 0005); NULL when the definition has none. */
  schemas: string | null;
  /** Version of the adapter that generated the tools (migration 0007); NULL when unknown. */
  adapter_version: string | null;
  /** JSON text of the registry origin `{url, name, version}` (migration 0007); NULL when installed directly. */
  registry: string | null;
  /** 1 while the shapes of its tools' results are learned (migration 0021; default 1). */
  observe_outputs: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** Row of `tools`; primary key `(service_id, id)`. */
export interface ToolsTable {
  service_id: string;
  id: string;
  name: string;
  description: string;
  enabled: number;
  input_schema: string;
  output_schema: string;
  adapter_domain: string;
  /** JSON array of the definition's `keywords` (migration 0004). */
  keywords: string;
  /** The tool's row in `tool_search` (migration 0004); a service's tools hold one contiguous range. */
  search_id: number;
  /** How many words the id has (`wordCount`), for ranking (migration 0004). */
  id_words: number;
  /** How many words the name has (`wordCount`), for ranking (migration 0004). */
  name_words: number;
  /** JSON of the tool's annotations, only the four flags (migration 0016; `{}` when unknown). */
  annotations: Generated<string>;
  /** JSON text of the shape learned from its results (migration 0021); NULL when none. */
  observed_output: string | null;
}

/** Row of `service_policies` (migration 0016): a service's policy rules as JSON; none is `{}`. */
export interface ServicePoliciesTable {
  service_id: string;
  policy: string;
  updated_at: string;
}

/**
 * Row of `service_connections` (migration 0018): a service's named connection, shared
 * (`owner_id` null) or a principal's; primary key `(service_id, name)`. The four sealed columns
 * are AES-256-GCM ciphertext (never plaintext), all null when the connection has no secrets. A
 * service's secrets are its shared connection named `default`.
 */
export interface ServiceConnectionsTable {
  service_id: string;
  name: string;
  owner_id: string | null;
  status: Generated<string>;
  status_message: string | null;
  key_id: string | null;
  iv: string | null;
  tag: string | null;
  ciphertext: string | null;
  created_at: string;
  updated_at: string;
  /** Migration 0020: the sealed OAuth state (all four null without one). */
  oauth_key_id: string | null;
  oauth_iv: string | null;
  oauth_tag: string | null;
  oauth_ciphertext: string | null;
  /** SHA-256 (hex) of the pending authorization's state. */
  oauth_pending: string | null;
  /** Which host refreshes the tokens now, and until when (ISO). */
  oauth_lease_holder: string | null;
  oauth_lease_until: string | null;
}

/** The tables of the catalog (modules, services, tools, config, secrets, connections). */
export interface CatalogTables {
  modules: ModulesTable;
  module_config: ConfigTable;
  module_secrets: SecretsTable;
  services: ServicesTable;
  tools: ToolsTable;
  service_config: ConfigTable;
  service_connections: ServiceConnectionsTable;
  service_policies: ServicePoliciesTable;
  /** Migration 0009: one row (id 1) counting catalog writes, across hosts. */
  catalog_revision: { id: number; value: number | string | bigint };
}
