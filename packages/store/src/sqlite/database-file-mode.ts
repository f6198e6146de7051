import { chmodSync, closeSync, fchmodSync, openSync } from 'node:fs';

/** Mode of the database file and its WAL, shared-memory and journal files: owner only. */
export const DATABASE_FILE_MODE = 0o600;

const SIDECARS = ['-wal', '-shm', '-journal'] as const;

/**
 * Create the database file with mode 0600 before SQLite opens it, or tighten an existing one.
 * It holds process code, outputs and service config, so other local users must not read it.
 * Set with `fchmod`, not the create mode alone, so the process umask cannot loosen it; SQLite
 * then gives the WAL and shared-memory files it creates the database file's mode.
 */
export function prepareDatabaseFile(filename: string): void {
  const fd = openSync(filename, 'a', DATABASE_FILE_MODE);
  try {
    fchmodSync(fd, DATABASE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/** Tighten the WAL, shared-memory and journal files beside an open database (left from older versions). */
export function tightenDatabaseSidecars(filename: string): void {
  for (const suffix of SIDECARS) {
    try {
      chmodSync(`${filename}${suffix}`, DATABASE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
