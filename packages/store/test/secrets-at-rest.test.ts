import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openapiModule } from '@cyrnel/adapter-openapi';
import { secretsKeyId } from '@cyrnel/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The service connections' rows: a service's secrets are its `default` connection. */
function secretRows(
  h: Harness,
): { service_id: string; name: string; key_id: string; iv: string; ciphertext: string }[] {
  const db = new Database(join(h.dataDir, 'data.db'), { readonly: true });
  try {
    return db.prepare('select * from service_connections').all() as never;
  } finally {
    db.close();
  }
}

/** Whether any byte of the database file or its write-ahead log spells `text`. */
function inDatabaseFiles(h: Harness, text: string): boolean {
  return ['data.db', 'data.db-wal']
    .map((name) => join(h.dataDir, name))
    .some((file) => existsSync(file) && readFileSync(file).includes(Buffer.from(text)));
}

// A real OpenAPI document whose security schemes give the service a token and basic credentials.
const document = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  servers: [{ url: 'https://pets.example.com' }],
  components: {
    securitySchemes: { token: { type: 'http', scheme: 'bearer' }, basic: { type: 'http', scheme: 'basic' } },
  },
  paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'the pets' } } } } },
});

describe('service secrets at rest in the SQLite file', () => {
  it('stores ciphertext only, with the key id and a fresh IV per write', async () => {
    const key = randomBytes(32);
    harness = await createHarness({ builtins: [openapiModule], secretsKey: key });
    const { host } = harness;
    await host.services.install({
      id: 'svc',
      adapter: 'openapi',
      definition: document,
      secrets: { token: 'hunter2-token' },
    });
    const [first] = secretRows(harness);
    expect(first).toMatchObject({ service_id: 'svc', name: 'default' });
    expect(first?.key_id).toBe(secretsKeyId(key));
    expect(JSON.stringify(first)).not.toContain('hunter2');
    expect(inDatabaseFiles(harness, 'hunter2-token')).toBe(false);
    await host.services.patchSecrets('svc', [
      { op: 'add', path: '/basic', value: { username: 'carol', password: 'correct-horse-battery' } },
    ]);
    const [second] = secretRows(harness);
    expect(second?.iv).not.toBe(first?.iv);
    expect(inDatabaseFiles(harness, 'correct-horse-battery')).toBe(false);
    expect(inDatabaseFiles(harness, 'hunter2-token')).toBe(false);
    expect(await host.services.getSecretsPresent('svc')).toEqual([
      '/basic/password',
      '/basic/username',
      '/token',
    ]);
  });
});
