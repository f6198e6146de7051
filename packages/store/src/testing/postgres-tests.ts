/** Whether a run includes the PostgreSQL suites, and the line that says why not. */
export interface PostgresTests {
  /** False when `CYRNEL_TEST_POSTGRES=skip`: the suites show as skipped. */
  readonly enabled: boolean;
  /** Says that the suites are left out and how to run them; empty when they run. */
  readonly note: string;
}

/**
 * Read the switch `CYRNEL_TEST_POSTGRES`: unset (or `run`) runs the PostgreSQL suites, `skip`
 * leaves them out (a machine without PostgreSQL; CI never sets it). Anything else is refused, so
 * a typo cannot leave them out unnoticed.
 */
export function postgresTests(value: string | undefined = process.env.CYRNEL_TEST_POSTGRES): PostgresTests {
  if (value === undefined || value === '' || value === 'run') return { enabled: true, note: '' };
  if (value === 'skip') {
    return {
      enabled: false,
      note:
        'PostgreSQL suites left out (CYRNEL_TEST_POSTGRES=skip); unset it to run them against ' +
        'CYRNEL_TEST_DATABASE_URL or the machine server (scripts/postgres.sh)',
    };
  }
  throw new Error(`CYRNEL_TEST_POSTGRES must be "run" or "skip", not "${value}"`);
}

/**
 * This run's switch. A suite that needs PostgreSQL declares itself with
 * `describe.skipIf(!POSTGRES_TESTS.enabled)`, so a run without it shows the suite as skipped.
 *
 * @example
 * ```ts
 * describe.skipIf(!POSTGRES_TESTS.enabled)('the store on PostgreSQL', () => { … });
 * ```
 */
export const POSTGRES_TESTS: PostgresTests = postgresTests();

/**
 * Print {@link POSTGRES_TESTS}' note when the suites are left out, once per process however many
 * Vitest configs call it (a root run loads every package's).
 *
 * @example
 * ```ts
 * // vitest.config.ts of a package with PostgreSQL suites
 * notePostgresTests();
 * ```
 */
export function notePostgresTests(): void {
  const said = Symbol.for('cyrnel.postgresTestsNoted');
  const shared = globalThis as { [said]?: boolean };
  if (POSTGRES_TESTS.enabled || shared[said]) return;
  shared[said] = true;
  console.log(POSTGRES_TESTS.note);
}
