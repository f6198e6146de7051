import type { Generated } from 'kysely';

/** Row of `api_keys` (migration 0003): `hash` is the hex SHA-256 of the key; the key is never stored. */
export interface ApiKeysTable {
  id: string;
  name: string;
  /** The principal the key belongs to (migration 0017; written for every key, null on no row). */
  principal_id: string | null;
  role: string;
  hash: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  /** JSON of what the key may call (migration 0016); null: every tool. */
  scope: Generated<string | null>;
  /** JSON of how its calls differ from the policies (migration 0016); null: they follow them. */
  policy: Generated<string | null>;
}

/** Row of `principals` (migration 0017): who keys belong to. */
export interface PrincipalsTable {
  id: string;
  name: string;
  /** `person` or `automation`. */
  kind: string;
  created_at: string;
  /** The OAuth identity (`<issuer>#<sub>`) the principal is (migration 0019); unique, null for most. */
  external_subject: Generated<string | null>;
}

/** The tables of the key store. */
export interface KeyTables {
  api_keys: ApiKeysTable;
  principals: PrincipalsTable;
}
