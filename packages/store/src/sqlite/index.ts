export { type CreateKyselyOptions, createKysely } from './create-kysely';
export { type OpenSqliteStoreOptions, openSqliteStore, type SqliteStore } from './open-sqlite-store';
export { sqliteDialect } from './sqlite-dialect';
