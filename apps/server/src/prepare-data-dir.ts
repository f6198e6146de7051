import { chmod, mkdir, stat } from 'node:fs/promises';
import type { ServerLogger } from './create-logger';

/**
 * Create the data directory owner-only (0700), or warn when an existing one is open to other
 * users. It holds the database, `secrets.key` and custom modules. A new directory is set with
 * `chmod` after `mkdir`, so the umask cannot loosen it; an existing one is never changed (it
 * may be shared on purpose, or be something like `/tmp` given by mistake) — the warning says how
 * to tighten it. The files cyrnel writes in it are 0600 either way.
 */
export async function prepareDataDir(dataDir: string, logger: Pick<ServerLogger, 'warn'>): Promise<void> {
  const created = await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (created !== undefined) {
    await chmod(dataDir, 0o700);
    return;
  }
  const mode = (await stat(dataDir)).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    logger.warn('the data directory is accessible to other users; consider chmod 700', {
      dataDir,
      mode: mode.toString(8).padStart(4, '0'),
    });
  }
}
