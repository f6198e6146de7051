import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/**
 * Tails of the in-process lock queues, by database file. Process-wide on purpose: the resource it
 * guards, a SQLite file's write lock, is shared by every connection this process opens on it.
 */
const tails = new Map<string, Promise<void>>();

/** Wait until every earlier holder of `file` has released it; answer the release of this hold. */
async function lockFile(file: string): Promise<() => void> {
  const previous = tails.get(file) ?? Promise.resolve();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => held);
  tails.set(file, tail);
  await previous;
  return () => {
    release();
    if (tails.get(file) === tail) tails.delete(file);
  };
}

/** `driver`, whose connection is held only while this process's lock of `file` is held. */
function lockedDriver(driver: Driver, file: string): Driver {
  let release: (() => void) | undefined;
  return {
    init: (options) => driver.init(options),
    async acquireConnection(options): Promise<DatabaseConnection> {
      const unlock = await lockFile(file);
      try {
        const connection = await driver.acquireConnection(options);
        release = unlock;
        return connection;
      } catch (error) {
        unlock();
        throw error;
      }
    },
    async releaseConnection(connection, options) {
      try {
        await driver.releaseConnection(connection, options);
      } finally {
        const unlock = release;
        release = undefined;
        unlock?.();
      }
    },
    beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
    commitTransaction: (connection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
    ...(driver.savepoint ? { savepoint: driver.savepoint.bind(driver) } : {}),
    ...(driver.rollbackToSavepoint ? { rollbackToSavepoint: driver.rollbackToSavepoint.bind(driver) } : {}),
    ...(driver.releaseSavepoint ? { releaseSavepoint: driver.releaseSavepoint.bind(driver) } : {}),
    destroy: (options) => driver.destroy(options),
  };
}

/**
 * `dialect` with its connection used by one Kysely instance of this process at a time per
 * database file. better-sqlite3 waits for a SQLite lock synchronously (`busy_timeout`), blocking
 * the event loop: a second connection of the same process writing while the first is inside a
 * transaction would stall the whole process for the busy timeout and then fail, since the first
 * can never reach its commit. Other processes still wait on `busy_timeout` as usual.
 */
export function lockPerFile(dialect: Dialect, file: string): Dialect {
  return {
    createDriver: () => lockedDriver(dialect.createDriver(), file),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
