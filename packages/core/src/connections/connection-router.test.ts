import { randomBytes } from 'node:crypto';
import type { AdapterModule, ServiceState } from '@cyrnel/sdk';
import { isCyrnelError } from '@cyrnel/sdk';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { createMemoryCatalogStorage } from '../catalog/memory-catalog-storage';
import { createOutboundPolicy } from '../outbound/outbound-policy';
import { createSecretsCipher } from '../secrets/secrets-cipher';
import { createSecretsVault } from '../secrets/secrets-vault';
import { createServiceHealth } from '../services/service-health';
import { createServicesApi, type ServicesEngine } from '../services/services-api';
import { watchCatalog } from '../several-hosts/catalog-revision';
import { newService } from '../testing/catalog-fixtures';
import { createCallable } from '../tools/callable';
import { createSchemaChecker } from '../validation/schema-checker';

/** An adapter that keeps what it is hydrated with, by id, as adapters do. */
function recordingAdapter() {
  const held = new Map<string, ServiceState>();
  const hydrations: string[] = [];
  const adapter: AdapterModule = {
    async setup() {},
    async teardown() {},
    async generateDefinition() {
      throw new Error('not used');
    },
    async hydrateService(state) {
      hydrations.push(state.id);
      held.set(state.id, state);
    },
    async dehydrateService(id) {
      held.delete(id);
    },
    async invoke() {
      return {};
    },
  };
  return { adapter, held, hydrations };
}

const SECRETS_SCHEMA = {
  type: 'object',
  properties: { token: { type: 'string' } },
  additionalProperties: false,
};
const ALICE = { principalId: 'alice', admin: false };
const BOB = { principalId: 'bob', admin: false };
const ADMIN = { principalId: null, admin: true };

describe('connection router', () => {
  const checker = createSchemaChecker({ workers: 1 });
  let catalog: CatalogStorage;
  let engine: ServicesEngine;
  let recorded: ReturnType<typeof recordingAdapter>;

  // Reads of a service's connection rows (each call's route reads them at most once per revision).
  let listed = 0;

  beforeEach(async () => {
    const memory = createMemoryCatalogStorage();
    const counted: CatalogStorage = Object.assign(Object.create(memory) as CatalogStorage, {
      listConnections: (serviceId: string) => {
        listed++;
        return memory.listConnections(serviceId);
      },
    });
    const watched = watchCatalog(counted);
    catalog = watched.catalog;
    recorded = recordingAdapter();
    const health = createServiceHealth();
    const adapter = (id: string) => (id === 'openapi' ? recorded.adapter : undefined);
    const vault = createSecretsVault(
      catalog,
      createSecretsCipher({ key: randomBytes(32) }),
      () => new Date(),
    );
    engine = createServicesApi({
      catalog,
      vault,
      registry: { adapter, isKnownAdapter: (id) => id === 'openapi', adapterVersion: () => '1.0.0' },
      checker,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      now: () => new Date(),
      health,
      callable: createCallable({ adapter, activeAdapterIds: () => ['openapi'], health }),
      // Nothing is downloaded here: the service is stored directly.
      download: { outbound: createOutboundPolicy(), maxBytes: 1 },
      principalExists: async (id) => id === 'alice' || id === 'bob',
      revision: watched.revision,
    });
    await catalog.insertService(
      newService('gh', {
        secretsSchema: SECRETS_SCHEMA,
        secrets: vault.seal({ kind: 'service', id: 'gh' }, { token: 'shared' }),
      }),
    );
    await engine.setEnabled('gh', true);
  });
  afterAll(() => checker.close());

  const tokenOf = (id: string) => recorded.held.get(id)?.secrets.token;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (isCyrnelError(error) ? error.reason : String(error)),
    );

  it("routes each principal to its own connection, the rest to the service's own, hydrating each once per version", async () => {
    await engine.connections.create('gh', { name: 'alice', secrets: { token: 'a1' } }, ALICE);
    await engine.connections.create('gh', { name: 'work', secrets: { token: 'w' } }, ADMIN);
    const run = (principalId: string | null, connections: Record<string, string> = {}) => ({
      principalId,
      connections,
    });
    expect(await engine.router.route(run('alice'), 'gh')).toBe('gh@alice');
    expect(await engine.router.route(run('alice'), 'gh')).toBe('gh@alice');
    expect(await engine.router.route(run('bob'), 'gh')).toBe('gh');
    expect(await engine.router.route(run(null), 'gh')).toBe('gh');
    expect(await engine.router.route(run('bob', { gh: 'work' }), 'gh')).toBe('gh@work');
    expect(await engine.router.route(run('alice'), 'gh', 'default')).toBe('gh');
    expect(tokenOf('gh@alice')).toBe('a1');
    expect(tokenOf('gh@work')).toBe('w');
    expect(tokenOf('gh')).toBe('shared');
    expect(recorded.hydrations.filter((id) => id === 'gh@alice')).toHaveLength(1);

    // Another's, an unknown one, a malformed name: refused, nothing hydrated for them.
    expect(await refusal(engine.router.route(run('bob'), 'gh', 'alice'))).toBe('connection_forbidden');
    expect(await refusal(engine.router.route(run(null), 'gh', 'alice'))).toBe('connection_forbidden');
    expect(await refusal(engine.router.route(run('bob'), 'gh', 'nope'))).toBe('connection_not_found');
    expect(await refusal(engine.router.route(run('bob'), 'gh', 'Bad Name'))).toBe('invalid_request');
    expect(await refusal(engine.router.check(run('bob', { gh: 'alice' })))).toBe('connection_forbidden');
    await engine.router.check(run('alice', { gh: 'alice' }));
  });

  it('hydrates a changed connection again in place, drops a deleted one, and follows its service', async () => {
    await engine.connections.create('gh', { name: 'alice', secrets: { token: 'a1' } }, ALICE);
    const alice = { principalId: 'alice', connections: {} };
    await engine.router.route(alice, 'gh');
    await engine.connections.update('gh', 'alice', { secrets: { token: 'a2' } }, ALICE);
    expect(tokenOf('gh@alice')).toBe('a2');
    // The service hydrated again (its config changed): its connections with it.
    await engine.patchConfig('gh', [{ op: 'add', path: '/region', value: 'us' }]);
    expect(recorded.held.get('gh@alice')?.config).toMatchObject({ region: 'us' });
    await engine.setEnabled('gh', false);
    expect(recorded.held.has('gh@alice')).toBe(false);
    await engine.setEnabled('gh', true);
    expect(await engine.router.route(alice, 'gh')).toBe('gh@alice');
    expect(tokenOf('gh@alice')).toBe('a2');
    await engine.connections.delete('gh', 'alice', ALICE);
    expect(recorded.held.has('gh@alice')).toBe(false);
    expect(await engine.router.route(alice, 'gh')).toBe('gh');
  });

  it("reads a service's connection rows once per catalog revision, and again after any write", async () => {
    await engine.connections.create('gh', { name: 'alice', secrets: { token: 'a1' } }, ALICE);
    const bob = { principalId: 'bob', connections: {} };
    listed = 0;
    expect([await engine.router.route(bob, 'gh'), await engine.router.route(bob, 'gh')]).toEqual([
      'gh',
      'gh',
    ]);
    expect(listed).toBe(1);
    // Given to bob: his calls use it from the write on.
    await engine.connections.update('gh', 'alice', { owner: 'bob' }, ADMIN);
    expect(await engine.router.route(bob, 'gh')).toBe('gh@alice');
    expect(tokenOf('gh@alice')).toBe('a1');
    // A service with a connection that signs in with OAuth: its rows are read on every call.
    const at = new Date().toISOString();
    await catalog.insertConnection({
      serviceId: 'gh',
      name: 'signed',
      owner: 'alice',
      status: 'connected',
      statusMessage: null,
      secrets: null,
      // Never opened here: bob's calls route to his own connection.
      oauth: { keyId: 'k', iv: 'iv', tag: 'tag', ciphertext: 'sealed' },
      createdAt: at,
      updatedAt: at,
    });
    listed = 0;
    expect([await engine.router.route(bob, 'gh'), await engine.router.route(bob, 'gh')]).toEqual([
      'gh@alice',
      'gh@alice',
    ]);
    expect(listed).toBe(2);
  });

  it('keeps to the ownership rules and checks secrets against the schema', async () => {
    await engine.connections.create('gh', { name: 'alice', secrets: { token: 'a1' } }, ALICE);
    expect((await engine.connections.list('gh', BOB)).map((row) => row.name)).toEqual(['default']);
    expect((await engine.connections.list('gh', ADMIN)).map((row) => row.name)).toEqual(['default', 'alice']);
    expect(await refusal(engine.connections.get('gh', 'alice', BOB))).toBe('connection_not_found');
    expect(await refusal(engine.connections.create('gh', { name: 'x', owner: 'alice' }, BOB))).toBe(
      'forbidden',
    );
    expect(await refusal(engine.connections.create('gh', { name: 'x', owner: 'ghost' }, ADMIN))).toBe(
      'invalid_request',
    );
    expect(await refusal(engine.connections.create('gh', { name: 'default', owner: 'bob' }, ADMIN))).toBe(
      'invalid_request',
    );
    expect(await refusal(engine.connections.create('gh', { name: 'x', secrets: { token: 1 } }, ADMIN))).toBe(
      'invalid_request',
    );
    expect(await refusal(engine.connections.update('gh', 'default', { secrets: {} }, ALICE))).toBe(
      'forbidden',
    );
    expect(await refusal(engine.connections.update('gh', 'alice', { owner: 'bob' }, ALICE))).toBe(
      'forbidden',
    );
    const given = await engine.connections.update('gh', 'alice', { owner: 'bob' }, ADMIN);
    expect(given).toMatchObject({ owner: 'bob', secrets: ['/token'] });
    expect(JSON.stringify(given)).not.toContain('a1');
    // The default connection is the service's own secrets: replacing them hydrates the service.
    await engine.connections.update('gh', 'default', { secrets: { token: 'shared-2' } }, ADMIN);
    expect(tokenOf('gh')).toBe('shared-2');
  });
});
