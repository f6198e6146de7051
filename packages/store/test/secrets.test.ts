import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { secretsKeyId } from '@cyrnel/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';
import { createProbe, createTestAdapter, definition } from './support/test-adapter';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function secretRows(h: Harness): { owner_id: string; key_id: string; iv: string; ciphertext: string }[] {
  const db = new Database(join(h.dataDir, 'data.db'), { readonly: true });
  try {
    return db.prepare('select * from service_secrets').all() as never;
  } finally {
    db.close();
  }
}

const text = definition({
  tools: ['ping'],
  secretsSchema: {
    type: 'object',
    properties: {
      token: { type: 'string' },
      basic: { type: 'object' },
      scope: { type: 'string', default: 'read' },
    },
  },
});

describe('service secrets', () => {
  it('stores ciphertext only, with a fresh IV per write, and reports only present pointers', async () => {
    const probe = createProbe();
    const key = randomBytes(32);
    harness = await createHarness({ builtins: [createTestAdapter('test', probe)], secretsKey: key });
    const { host } = harness;
    await host.services.install({
      id: 'svc',
      adapter: 'test',
      definition: text,
      secrets: { token: 'hunter2-token' },
    });
    const [first] = secretRows(harness);
    expect(first?.key_id).toBe(secretsKeyId(key));
    for (const file of ['data.db', 'data.db-wal'].map((name) => join(harness?.dataDir ?? '', name))) {
      if (existsSync(file)) expect(readFileSync(file).includes(Buffer.from('hunter2-token'))).toBe(false);
    }
    expect(JSON.stringify(first)).not.toContain('hunter2');
    await host.services.patchSecrets('svc', [
      { op: 'add', path: '/basic', value: { username: 'u', password: 'p' } },
    ]);
    const [second] = secretRows(harness);
    expect(second?.iv).not.toBe(first?.iv);
    expect(await host.services.getSecretsPresent('svc')).toEqual([
      '/basic/password',
      '/basic/username',
      '/scope',
      '/token',
    ]);
    await host.services.setEnabled('svc', true);
    expect(probe.states.get('svc')?.secrets).toEqual({
      token: 'hunter2-token',
      basic: { username: 'u', password: 'p' },
      scope: 'read',
    });
  });

  it('never echoes secret values in validation errors and refuses test operations', async () => {
    const probe = createProbe();
    harness = await createHarness({ builtins: [createTestAdapter('test', probe)] });
    const { host } = harness;
    await host.services.install({ id: 'svc', adapter: 'test', definition: text, secrets: { token: 'abc' } });
    const invalid = await host.services
      .patchSecrets('svc', [{ op: 'replace', path: '/token', value: 12345678 }])
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: 'invalid_request' });
    expect(
      JSON.stringify({
        message: (invalid as Error).message,
        details: (invalid as { details: unknown }).details,
      }),
    ).not.toContain('12345678');
    await expect(
      host.services.patchSecrets('svc', [{ op: 'test', path: '/token', value: 'abc' }]),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('keeps secret values out of logs, records and errors across a whole service life', async () => {
    const probe = createProbe();
    const entries: unknown[] = [];
    const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      entries.push({ level, message, fields });
    harness = await createHarness({
      builtins: [createTestAdapter('test', probe)],
      logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
    });
    const { host } = harness;
    const secret = 'tok-98765-very-secret';
    const installed = await host.services.install({
      id: 'svc',
      adapter: 'test',
      definition: text,
      secrets: { token: secret },
    });
    await host.services.setEnabled('svc', true);
    probe.failHydrate = 'upstream said no';
    const errors = await Promise.all([
      host.services
        .patchSecrets('svc', [{ op: 'replace', path: '/token', value: `${secret}-2` }])
        .catch((e) => e),
      host.services.patchSecrets('svc', [{ op: 'replace', path: '/token', value: 42 }]).catch((e) => e),
    ]);
    const seen = JSON.stringify({
      entries,
      installed,
      detail: await host.services.get('svc'),
      present: await host.services.getSecretsPresent('svc'),
      errors: errors.map((e: { message: string; details?: unknown }) => ({
        message: e.message,
        details: e.details,
      })),
    });
    expect(seen).not.toContain(secret);
    expect(probe.states.get('svc')?.secrets.token).toBe(secret);
  });

  it('decrypts with a previous key and re-encrypts with the current one', async () => {
    const probe = createProbe();
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    harness = await createHarness({ builtins: [createTestAdapter('test', probe)], secretsKey: oldKey });
    await harness.host.services.install({
      id: 'svc',
      adapter: 'test',
      definition: text,
      secrets: { token: 't' },
    });
    expect(secretRows(harness)[0]?.key_id).toBe(secretsKeyId(oldKey));
    await harness.restart({
      secretsKey: newKey.toString('base64'),
      previousSecretsKeys: [oldKey.toString('base64')],
    });
    expect(await harness.host.services.getSecretsPresent('svc')).toEqual(['/scope', '/token']);
    expect(secretRows(harness)[0]?.key_id).toBe(secretsKeyId(newKey));
    await harness.restart({ secretsKey: newKey, previousSecretsKeys: [] });
    await harness.host.services.setEnabled('svc', true);
    expect(probe.states.get('svc')?.secrets).toMatchObject({ token: 't' });
  });

  it('fails clearly, without the key, when the key is unknown', async () => {
    const probe = createProbe();
    harness = await createHarness({ builtins: [createTestAdapter('test', probe)] });
    await harness.host.services.install({
      id: 'svc',
      adapter: 'test',
      definition: text,
      secrets: { token: 't' },
    });
    await harness.restart({ secretsKey: randomBytes(32) });
    await expect(harness.host.services.getSecretsPresent('svc')).rejects.toMatchObject({
      code: 'internal',
      message: expect.stringContaining('unknown key'),
    });
  });

  it('rotates module secrets too: read under a previous key, re-encrypted with the current one', async () => {
    const probe = createProbe();
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    harness = await createHarness({ builtins: [createTestAdapter('test', probe)], secretsKey: oldKey });
    await harness.host.modules.patchSecrets('test', [
      { op: 'add', path: '/apiKey', value: 'module-secret-1' },
    ]);
    const moduleRows = () => {
      const db = new Database(join(harness?.dataDir ?? '', 'data.db'), { readonly: true });
      try {
        return db.prepare('select owner_id, key_id, ciphertext from module_secrets').all() as {
          owner_id: string;
          key_id: string;
          ciphertext: string;
        }[];
      } finally {
        db.close();
      }
    };
    expect(moduleRows()).toMatchObject([{ owner_id: 'test', key_id: secretsKeyId(oldKey) }]);
    expect(JSON.stringify(moduleRows())).not.toContain('module-secret-1');
    // Activation at start reads the secrets for setup and re-encrypts them with the new key.
    await harness.restart({ secretsKey: newKey, previousSecretsKeys: [oldKey] });
    expect(await harness.host.modules.get('test')).toMatchObject({ status: 'active' });
    expect(moduleRows()).toMatchObject([{ owner_id: 'test', key_id: secretsKeyId(newKey) }]);
    await harness.restart({ secretsKey: newKey, previousSecretsKeys: [] });
    expect(await harness.host.modules.getSecretsPresent('test')).toEqual(['/apiKey']);
    expect(await harness.host.modules.get('test')).toMatchObject({ status: 'active', error: null });
  });
});
