import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleLogger } from '@cyrnel/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSecretsKey } from './load-secrets-key';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'cyrnel-key-'));
  dirs.push(dir);
  return dir;
}

function recordingLogger() {
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    entries.push({ level, message, fields });
  const logger: ModuleLogger = {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
  return { logger, entries };
}

describe('loadSecretsKey', () => {
  it('uses CYRNEL_SECRETS_KEY and the previous keys from the environment', () => {
    const key = randomBytes(32);
    const previous = randomBytes(32);
    const loaded = loadSecretsKey({
      dataDir: tempDir(),
      env: {
        CYRNEL_SECRETS_KEY: key.toString('base64'),
        CYRNEL_SECRETS_PREVIOUS_KEYS: ` ${previous.toString('base64')} ,`,
      },
    });
    expect(loaded.source).toBe('env');
    expect(loaded.key.equals(key)).toBe(true);
    expect(loaded.previousKeys.map((k) => k.toString('hex'))).toEqual([previous.toString('hex')]);
  });

  it('refuses a key that is not base64 of 32 bytes, naming the variable', () => {
    expect(() => loadSecretsKey({ dataDir: tempDir(), env: { CYRNEL_SECRETS_KEY: 'c2hvcnQ=' } })).toThrow(
      'CYRNEL_SECRETS_KEY',
    );
  });

  it('generates a 0600 key file once, announces it once, and reuses it', () => {
    const dataDir = join(tempDir(), 'nested');
    const { logger, entries } = recordingLogger();
    const first = loadSecretsKey({ dataDir, env: {}, logger });
    expect(first.source).toBe('generated');
    const file = join(dataDir, 'secrets.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first.key)).toBe(true);
    const second = loadSecretsKey({ dataDir, env: {}, logger });
    expect(second.source).toBe('file');
    expect(second.key.equals(first.key)).toBe(true);
    expect(entries.filter((entry) => entry.message.includes('generated'))).toHaveLength(1);
    expect(JSON.stringify(entries)).not.toContain(first.key.toString('base64'));
  });

  it('refuses a corrupt key file', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'secrets.key'), 'too short', { mode: 0o600 });
    expect(() => loadSecretsKey({ dataDir, env: {} })).toThrow('32 bytes');
  });
});
