/**
 * The PostgreSQL of the test suites and benchmarks when nothing else is said: database
 * `cyrnel_test` of the machine's server on 127.0.0.1:5432, trust auth (`scripts/postgres.sh`
 * starts the server and creates the database).
 */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/cyrnel_test';

/**
 * The PostgreSQL every suite and benchmark uses: `CYRNEL_TEST_DATABASE_URL`, else
 * {@link DEFAULT_TEST_DATABASE_URL}. Suites work in schemas or databases of their own on it.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema: 'cyrnel_t_1' });
 * ```
 */
export const TEST_DATABASE_URL: string = process.env.CYRNEL_TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL;
