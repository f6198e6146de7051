import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite/open-sqlite-store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const at = '2026-01-01T00:00:00.000Z';
const sealed = (keyId: string) => ({ keyId, iv: 'iv', tag: 'tag', ciphertext: 'ct' });

describe('settings rows', () => {
  it('keeps the config and secrets of a module and a service of the same id apart, and drops a service’s with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cyrnel-settings-'));
    dirs.push(dir);
    const store = await openSqliteStore({ dataDir: dir });
    const { catalog } = store;
    const module = { kind: 'module', id: 'same' } as const;
    const service = { kind: 'service', id: 'same' } as const;
    await catalog.insertModule({
      id: 'same',
      type: 'adapter',
      name: 'same',
      description: '',
      version: '1.0.0',
      isBuiltin: false,
      enabled: false,
      missing: false,
      createdAt: at,
      updatedAt: at,
    });
    await catalog.insertService({
      id: 'same',
      adapter: 'same',
      enabled: false,
      name: 'same',
      description: '',
      hash: 'h',
      source: null,
      definition: '{}',
      configSchema: {},
      secretsSchema: {},
      adapterDomain: {},
      tools: [],
      config: { from: 'install' },
      secrets: null,
      createdAt: at,
    });
    expect(await catalog.getConfig(module)).toBeUndefined();
    expect(await catalog.getConfig(service)).toEqual({ from: 'install' });
    await catalog.setConfig(module, { a: 1 }, at);
    await catalog.setConfig(module, { a: 2 }, at);
    await catalog.setSecrets(module, sealed('m'), at);
    await catalog.setSecrets(service, sealed('s'), at);
    expect(await catalog.getConfig(module)).toEqual({ a: 2 });
    expect(await catalog.getConfig(service)).toEqual({ from: 'install' });
    expect(await catalog.getSecrets(module)).toEqual(sealed('m'));
    expect(await catalog.getSecrets(service)).toEqual(sealed('s'));
    expect(await catalog.deleteService('same')).toBe(true);
    expect(await catalog.getConfig(service)).toBeUndefined();
    expect(await catalog.getSecrets(service)).toBeUndefined();
    expect(await catalog.getSecrets(module)).toEqual(sealed('m'));
    await store.close();
  });
});
