import type { Generated } from 'kysely';

/** Row of `api_keys` (migration 0003): `hash` is the hex SHA-256 of the key; the key is never stored. */
export interface ApiKeysTable {
  id: string;
  name: string;
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

/** The tables of the key store. */
export interface KeyTables {
  api_keys: ApiKeysTable;
}
