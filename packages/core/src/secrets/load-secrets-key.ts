import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModuleLogger } from '@cyrnel/sdk';
import { decodeSecretsKey } from './secrets-cipher';

/** Options of {@link loadSecretsKey}. */
export interface LoadSecretsKeyOptions {
  /** The data directory; the generated key lives in `secrets.key` there. */
  readonly dataDir: string;
  /** Environment variables (`CYRNEL_SECRETS_KEY`, `CYRNEL_SECRETS_PREVIOUS_KEYS`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Announces a generated key file (once, when it is created). */
  readonly logger?: ModuleLogger;
}

/** The keys for `createHost({ secretsKey, previousSecretsKeys })`. */
export interface LoadedSecretsKey {
  readonly key: Buffer;
  readonly previousKeys: Buffer[];
  /** Where the key came from. */
  readonly source: 'env' | 'file' | 'generated';
  /** The key file, when the key came from one. */
  readonly file?: string;
}

/**
 * Resolve the secrets key: `CYRNEL_SECRETS_KEY` (base64 of 32 bytes), else
 * `$dataDir/secrets.key`, created with a random key and mode 0600 on first start and announced
 * in the log. Never a constant or empty key. Previous keys come from
 * `CYRNEL_SECRETS_PREVIOUS_KEYS` (comma-separated base64).
 */
export function loadSecretsKey(options: LoadSecretsKeyOptions): LoadedSecretsKey {
  const env = options.env ?? {};
  const previousKeys = (env.CYRNEL_SECRETS_PREVIOUS_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean)
    .map((key, i) => decodeSecretsKey(key, `CYRNEL_SECRETS_PREVIOUS_KEYS[${i}]`));
  const fromEnv = env.CYRNEL_SECRETS_KEY?.trim();
  if (fromEnv) return { key: decodeSecretsKey(fromEnv, 'CYRNEL_SECRETS_KEY'), previousKeys, source: 'env' };
  const file = join(options.dataDir, 'secrets.key');
  mkdirSync(options.dataDir, { recursive: true });
  try {
    const key = randomBytes(32);
    // `wx` fails when the file exists, so two starting servers never overwrite each other's key.
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    options.logger?.warn('generated a secrets key file; back it up, secrets cannot be decrypted without it', {
      file,
    });
    return { key, previousKeys, source: 'generated', file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((statSync(file).mode & 0o077) !== 0) {
    options.logger?.warn('the secrets key file is readable by other users; chmod 600 it', { file });
  }
  return { key: decodeSecretsKey(readFileSync(file, 'utf8'), file), previousKeys, source: 'file', file };
}
