import { cyrnelError } from '../errors';
import type { LiveProcess } from './live-process';
import type { ProcessLimits } from './process-limits';
import type { ProcessStorage } from './process-storage';

const MIB = 1024 * 1024;

function size(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${bytes} bytes`;
}

/**
 * Refuse a create or re-run by `keyId` while its process records hold its quota of bytes or
 * more (429 `storage_quota_exceeded`). One read of the key's running total, which every write
 * keeps; processes without a key have no quota.
 */
export async function checkStorageQuota(
  storage: ProcessStorage,
  limits: ProcessLimits,
  keyId: string | null,
  live: Iterable<LiveProcess> = [],
): Promise<void> {
  const maxStoredBytes = limits.maxStoredBytesPerKey;
  if (keyId === null || maxStoredBytes <= 0) return;
  // A run of the key that ended here is answered before its results are written: count them.
  const writing: Promise<void>[] = [];
  for (const run of live) if (run.finished && run.record.keyId === keyId) writing.push(run.settled);
  await Promise.all(writing);
  const { storedBytes } = await storage.keyUsage(keyId);
  if (storedBytes < maxStoredBytes) return;
  const pruning =
    limits.retentionMs > 0 || limits.retentionPerKey > 0
      ? 'or wait for retention to prune old idle ones'
      : 'retention is off on this server';
  throw cyrnelError(
    'storage_quota_exceeded',
    `the processes of this key hold ${size(storedBytes)}, at or above its storage quota of ${size(maxStoredBytes)}: ` +
      `delete processes it no longer needs (DELETE /processes/:id), ${pruning}`,
  );
}
