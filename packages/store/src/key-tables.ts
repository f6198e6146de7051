/** Row of `api_keys` (migration 0003): `hash` is the hex SHA-256 of the key; the key is never stored. */
export interface ApiKeysTable {
  id: string;
  name: string;
  role: string;
  hash: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** The tables of the key store. */
export interface KeyTables {
  api_keys: ApiKeysTable;
}
