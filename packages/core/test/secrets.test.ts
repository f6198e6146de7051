import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { secretsKeyId } from '../src/index';
import { createHarness, type Harness } from './support/harness';
import { createProbe, createTestAdapter, definition } from './support/test-adapter';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The sealed secrets of an owner as the storage holds them. */
const sealed = (h: Harness, kind: 'module' | 'service', id: string) =>
  h.storage.catalog.getSecrets({ kind, id });

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
  it('hands the storage only ciphertext under the current key, a fresh IV per write, and reports only present pointers', async () => {
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
    const first = await sealed(harness, 'service', 'svc');
    expect(first?.keyId).toBe(secretsKeyId(key));
    expect(JSON.stringify(first)).not.toContain('hunter2');
    expect(Buffer.from(first?.ciphertext ?? '', 'base64').includes(Buffer.from('hunter2'))).toBe(false);
    await host.services.patchSecrets('svc', [
      { op: 'add', path: '/basic', value: { username: 'u', password: 'p' } },
    ]);
    const second = await sealed(harness, 'service', 'svc');
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
    expect((await sealed(harness, 'service', 'svc'))?.keyId).toBe(secretsKeyId(oldKey));
    await harness.restart({
      secretsKey: newKey.toString('base64'),
      previousSecretsKeys: [oldKey.toString('base64')],
    });
    expect(await harness.host.services.getSecretsPresent('svc')).toEqual(['/scope', '/token']);
    expect((await sealed(harness, 'service', 'svc'))?.keyId).toBe(secretsKeyId(newKey));
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
    const moduleSecrets = () => sealed(harness as Harness, 'module', 'test');
    expect(await moduleSecrets()).toMatchObject({ keyId: secretsKeyId(oldKey) });
    expect(JSON.stringify(await moduleSecrets())).not.toContain('module-secret-1');
    // Activation at start reads the secrets for setup and re-encrypts them with the new key.
    await harness.restart({ secretsKey: newKey, previousSecretsKeys: [oldKey] });
    expect(await harness.host.modules.get('test')).toMatchObject({ status: 'active' });
    expect(await moduleSecrets()).toMatchObject({ keyId: secretsKeyId(newKey) });
    await harness.restart({ secretsKey: newKey, previousSecretsKeys: [] });
    expect(await harness.host.modules.getSecretsPresent('test')).toEqual(['/apiKey']);
    expect(await harness.host.modules.get('test')).toMatchObject({ status: 'active', error: null });
  });
});
