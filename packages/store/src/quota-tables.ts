/** Row of `key_usage` (migration 0014): what one key's processes hold, kept by triggers. */
export interface KeyUsageTable {
  key_id: string;
  /** Bytes of its process records (PostgreSQL: bigint, read as a string). */
  stored_bytes: number | string;
  processes: number;
}

/** The tables of the quota and retention queries. */
export interface QuotaTables {
  key_usage: KeyUsageTable;
}
