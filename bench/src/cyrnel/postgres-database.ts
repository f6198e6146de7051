import { randomBytes } from 'node:crypto';
import { freshPostgresDatabase } from '@cyrnel/store/testing';

/** A database created for one part of the bench, and the server variables that select it. */
export interface BenchDatabase {
  /** `CYRNEL_DATABASE_URL` and the `CYRNEL_SECRETS_KEY` every host on it must share. */
  readonly env: Record<string, string>;
  /** Drop the database (its servers stopped first). */
  dispose(): Promise<void>;
}

/** Create a fresh PostgreSQL database `cyrnel_bench_*` on the machine's server. */
export async function benchPostgresDatabase(): Promise<BenchDatabase> {
  const database = await freshPostgresDatabase('cyrnel_bench');
  return {
    env: { CYRNEL_DATABASE_URL: database.url, CYRNEL_SECRETS_KEY: randomBytes(32).toString('base64') },
    dispose: () => database.drop(),
  };
}
