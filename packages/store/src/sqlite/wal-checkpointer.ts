import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** Write statements between two checkpoints (a process's insert writes about 15 pages: near SQLite's own 1,000-page default). */
export const WRITES_PER_CHECKPOINT = 64;
/** A checkpointer thread with nothing to do for this long stops (an idle server holds no thread). */
export const CHECKPOINTER_IDLE_MS = 10_000;
/** Threads that may fail before the checkpoints stay on the connection for good. */
const MAX_FAILED_THREADS = 3;
/**
 * Frames the WAL may hold after a thread's checkpoint before the connection checkpoints too (about
 * 32 MiB of 4 KiB pages). The thread's checkpoint copies the frames committed when it began while
 * the connection goes on writing, so the WAL never ends fully copied, and SQLite starts it over
 * (instead of growing it) only when a write finds it so. The connection's own checkpoint, with
 * nothing written meanwhile, leaves it so; most of its frames are copied and synced already, so it
 * costs a sync of what came since.
 */
export const RESET_FRAMES = 8_000;
/** Checkpoints asked for while the thread's is under way before one runs on the connection. */
const MAX_WAITED = 16;

/**
 * The checkpointer's thread: it opens the file for each checkpoint, copies what the WAL holds into
 * the database without waiting for any reader or writer (`PASSIVE`), syncs, and closes it again,
 * so it never holds a connection between checkpoints. CommonJS, run with `eval`: better-sqlite3 is
 * loaded from the path the main thread resolved, so it works from the repository and from an
 * installed package alike.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
parentPort.on('message', () => {
  let answer;
  try {
    const db = new Database(workerData.filename, { fileMustExist: true });
    try {
      db.pragma('synchronous = NORMAL');
      const [row] = db.pragma('wal_checkpoint(PASSIVE)');
      answer = { ok: true, busy: row.busy, log: row.log, checkpointed: row.checkpointed };
    } finally {
      db.close();
    }
  } catch (error) {
    answer = { ok: false, error: String(error).slice(0, 300) };
  }
  parentPort.postMessage(answer);
});
`;

/** What a checkpoint did: SQLite's `wal_checkpoint` row, or why it failed. */
export type CheckpointAnswer =
  | { readonly ok: true; readonly busy: number; readonly log: number; readonly checkpointed: number }
  | { readonly ok: false; readonly error: string };

/** The checkpoints of one SQLite connection's WAL (see {@link startWalCheckpointer}). */
export interface WalCheckpointer {
  /** A write statement ran on the connection: every {@link WRITES_PER_CHECKPOINT}th asks for a checkpoint. */
  wrote(): void;
  /** Stop the thread (a checkpoint under way finishes in it, or not at all: the WAL keeps its pages). */
  close(): void;
  /** Checkpoints done, those of them on the connection itself (no thread), and threads started. */
  stats(): { readonly checkpoints: number; readonly onConnection: number; readonly threads: number };
}

/** Options of {@link startWalCheckpointer}; the defaults are the constants above. */
export interface WalCheckpointerOptions {
  readonly writesPerCheckpoint?: number;
  readonly idleMs?: number;
  /** Called with each checkpoint's answer (tests). */
  readonly onCheckpoint?: (answer: CheckpointAnswer) => void;
}

/**
 * Move the WAL checkpoints of `db` off the event loop. SQLite checkpoints a WAL database when a
 * commit finds 1,000 pages in the WAL, inside that commit, and at `synchronous = NORMAL` a
 * checkpoint is where the file is synced: on the server's thread that stalled every request for
 * the sync (measured: 0.29 ms a trivial process's two writes with it, 0.15 ms without). Here the
 * connection's own checkpoints are turned off and, every {@link WRITES_PER_CHECKPOINT} writes,
 * a worker thread runs a `PASSIVE` checkpoint on a connection of its own: it never waits for a
 * reader or a writer and never blocks them, and the durability is the same (a commit is in the
 * WAL either way). When the WAL holds {@link RESET_FRAMES} frames after it, the connection
 * checkpoints what came since, so that the WAL is started over rather than grown. At most one is
 * under way in the thread: while it is, every {@link MAX_WAITED}th one asked for runs on the
 * connection, as does every one when the thread cannot run (it failed to start, or its checkpoint
 * failed), so the WAL never grows without bound. The thread starts on the first
 * checkpoint and stops after {@link CHECKPOINTER_IDLE_MS} without work. A database in memory has
 * no WAL: nothing is started.
 *
 * @example
 * ```ts
 * const checkpoints = startWalCheckpointer(sqlite, filename);
 * const database = cacheStatements(sqlite, { onWrite: checkpoints.wrote, onClose: checkpoints.close });
 * ```
 */
export function startWalCheckpointer(
  db: SqliteDatabase.Database,
  filename: string,
  options: WalCheckpointerOptions = {},
): WalCheckpointer {
  const every = options.writesPerCheckpoint ?? WRITES_PER_CHECKPOINT;
  const idleMs = options.idleMs ?? CHECKPOINTER_IDLE_MS;
  const counts = { checkpoints: 0, onConnection: 0, threads: 0 };
  let writes = 0;
  let worker: Worker | undefined;
  let busy = false;
  let closed = false;
  let idleTimer: NodeJS.Timeout | undefined;
  /** Threads that failed their checkpoint; after {@link MAX_FAILED_THREADS} the connection does them all. */
  let failed = 0;
  db.pragma('wal_autocheckpoint = 0');

  const onConnection = () => {
    counts.checkpoints++;
    counts.onConnection++;
    try {
      const [row] = db.pragma('wal_checkpoint(PASSIVE)') as {
        busy: number;
        log: number;
        checkpointed: number;
      }[];
      options.onCheckpoint?.({
        ok: true,
        busy: row?.busy ?? 0,
        log: row?.log ?? 0,
        checkpointed: row?.checkpointed ?? 0,
      });
    } catch (error) {
      options.onCheckpoint?.({ ok: false, error: String(error) });
    }
  };

  const stop = () => {
    clearTimeout(idleTimer);
    idleTimer = undefined;
    const own = worker;
    worker = undefined;
    busy = false;
    void own?.terminate();
  };

  const threadOf = (): Worker | undefined => {
    if (worker) return worker;
    if (failed >= MAX_FAILED_THREADS) return undefined;
    try {
      const own = new Worker(THREAD, {
        eval: true,
        workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), filename },
        resourceLimits: { maxOldGenerationSizeMb: 16 },
      });
      own.unref();
      counts.threads++;
      own.on('message', (answer: CheckpointAnswer) => {
        if (own !== worker) return;
        busy = false;
        options.onCheckpoint?.(answer);
        if (!answer.ok) {
          // The thread could not checkpoint (the file moved, a permission): the connection does.
          failed++;
          stop();
          onConnection();
          return;
        }
        counts.checkpoints++;
        if (answer.log >= RESET_FRAMES) onConnection();
        clearTimeout(idleTimer);
        idleTimer = setTimeout(stop, idleMs);
        idleTimer.unref();
      });
      own.on('error', () => undefined);
      own.once('exit', () => {
        if (own !== worker) return;
        // Died under way: the connection checkpoints this time; the next one starts a new thread.
        worker = undefined;
        clearTimeout(idleTimer);
        if (busy && !closed) {
          failed++;
          busy = false;
          onConnection();
        }
      });
      worker = own;
      return own;
    } catch {
      return undefined;
    }
  };

  /** Checkpoints asked for while the thread's was under way. */
  let waited = 0;
  const checkpoint = () => {
    if (closed) return;
    if (busy) {
      // The thread's is still under way (a long burst, or an event loop that has not turned to
      // read its answer): after a few, one runs here, so the WAL stays bounded whatever the thread does.
      if (++waited < MAX_WAITED) return;
      waited = 0;
      onConnection();
      return;
    }
    waited = 0;
    const own = threadOf();
    if (!own) {
      onConnection();
      return;
    }
    busy = true;
    clearTimeout(idleTimer);
    own.postMessage(null);
  };

  return {
    wrote() {
      if (closed) return;
      writes++;
      if (writes % every === 0) checkpoint();
    },
    close() {
      closed = true;
      stop();
    },
    stats: () => ({ ...counts }),
  };
}
