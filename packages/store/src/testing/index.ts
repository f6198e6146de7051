export { type FreshDatabase, freshPostgresDatabase } from './fresh-postgres-database';
export { notePostgresTests, POSTGRES_TESTS, type PostgresTests, postgresTests } from './postgres-tests';
export { DEFAULT_TEST_DATABASE_URL, TEST_DATABASE_URL } from './test-database-url';
