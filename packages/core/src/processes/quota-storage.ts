/** What a stored API key holds in process records: the measure its quota and retention use. */
export interface KeyUsage {
  /** Bytes its process records count, by the rule of `storedProcessBytes` (calls included). */
  readonly storedBytes: number;
  /** How many processes it has stored (live ones included). */
  readonly processes: number;
}

/** Which idle processes {@link ProcessQuotaStorage.pruneIdle} deletes. */
export interface PruneRule {
  /** Idle processes last changed before this ISO timestamp (their end, or their creation). */
  readonly idleBefore?: string;
  /** Idle processes of a stored key beyond its newest `keepPerKey` processes (live ones count). */
  readonly keepPerKey?: number;
  /** Most processes one call deletes: a small batch, so no call holds the database for long. */
  readonly limit: number;
}

/**
 * The part of the process storage port that bounds what a key stores: a running total per
 * stored key, maintained by every write (never a scan per request), and pruning in batches.
 * Processes without a key count for no one.
 */
export interface ProcessQuotaStorage {
  /** What `keyId` holds now; zeros for a key without processes. */
  keyUsage(keyId: string): Promise<KeyUsage>;
  /**
   * Delete up to `rule.limit` idle processes that match the rule (older first), with their tool
   * calls, lowering their keys' totals; answers how many were deleted. Idempotent: several
   * hosts may prune at once, each process is deleted once, and a process running again is never
   * deleted.
   */
  pruneIdle(rule: PruneRule): Promise<number>;
}
