export { type OpenPostgresStoreOptions, openPostgresStore } from './open-postgres-store';
export { postgresDialect } from './postgres-dialect';
