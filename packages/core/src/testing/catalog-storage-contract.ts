import { isCyrnelError } from '@cyrnel/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogStorage } from '../index';
import { catalogConnectionCases } from './catalog-connection-cases';
import { newService, newTool } from './catalog-fixtures';
import { catalogObservedCases } from './catalog-observed-cases';
import { catalogPolicyCases } from './catalog-policy-cases';
import type { StorageUnderTest } from './process-storage-contract';
import { toolSearchContract } from './tool-search-contract';

/** Options of {@link runCatalogStorageContract}. */
export interface CatalogStorageContractOptions {
  /** Shown in the suite's name, e.g. `sqlite`. */
  readonly name: string;
  /** A fresh, empty catalog for each test. */
  create(): Promise<StorageUnderTest<CatalogStorage>>;
}

const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-02T00:00:00.000Z';

/**
 * The contract of core's `CatalogStorage` port as a Vitest suite: modules, per-owner config and
 * secrets, services with their tools stored and replaced in one transaction, shared schemas once
 * per service, the definition text and origin kept for regeneration and registry updates, the
 * gate's view of a tool, learned result shapes written conditionally, and the ranked tool search. Call it at the top level of a test file.
 *
 * @example
 * ```ts
 * import { openSqliteStore } from '@cyrnel/store/sqlite';
 * import { runCatalogStorageContract } from '@cyrnel/core/testing';
 *
 * runCatalogStorageContract({
 *   name: 'sqlite',
 *   async create() {
 *     const store = await openSqliteStore({ filename: join(await mkdtemp(join(tmpdir(), 'c-')), 'data.db') });
 *     return { storage: store.catalog, close: () => store.close() };
 *   },
 * });
 * ```
 */
export function runCatalogStorageContract(options: CatalogStorageContractOptions): void {
  describe(`CatalogStorage contract: ${options.name}`, () => {
    let subject: StorageUnderTest<CatalogStorage>;
    let catalog: CatalogStorage;
    beforeEach(async () => {
      subject = await options.create();
      catalog = subject.storage;
    });
    afterEach(async () => {
      await subject.close();
    });

    it('stores modules and changes only the fields a change names', async () => {
      const row = {
        id: 'openapi',
        type: 'adapter',
        name: 'OpenAPI',
        description: 'REST',
        version: '1.0.0',
        isBuiltin: true,
        enabled: true,
        missing: false,
        createdAt: AT,
        updatedAt: AT,
      } as const;
      await catalog.insertModule(row);
      await catalog.insertModule({ ...row, id: 'typescript-ivm', type: 'environment' });
      await catalog.updateModule('openapi', { version: '1.1.0', enabled: false, updatedAt: LATER });
      expect(await catalog.listModules()).toEqual([
        { ...row, version: '1.1.0', enabled: false, updatedAt: LATER },
        { ...row, id: 'typescript-ivm', type: 'environment' },
      ]);
    });

    it('keeps config and sealed secrets per existing owner, modules and services apart', async () => {
      const module = { kind: 'module', id: 'x' } as const;
      const service = { kind: 'service', id: 'x' } as const;
      // Settings belong to an owner that exists (a store may enforce it with foreign keys).
      await catalog.insertModule({
        id: 'x',
        type: 'adapter',
        name: 'X',
        description: '',
        version: '1.0.0',
        isBuiltin: false,
        enabled: false,
        missing: false,
        createdAt: AT,
        updatedAt: AT,
      });
      expect(await catalog.getConfig(module)).toBeUndefined();
      await catalog.insertService(newService('x'));
      expect(await catalog.getSecrets(service)).toBeUndefined();
      await catalog.setConfig(module, { a: 1 }, AT);
      await catalog.setConfig(service, { b: [true] }, AT);
      await catalog.setConfig(module, { a: 2 }, LATER);
      const sealed = { keyId: 'k', iv: 'aXY=', tag: 'dGFn', ciphertext: 'Y2lwaGVy' };
      await catalog.setSecrets(service, sealed, AT);
      expect(await catalog.getConfig(module)).toEqual({ a: 2 });
      expect(await catalog.getConfig(service)).toEqual({ b: [true] });
      expect(await catalog.getSecrets(service)).toEqual(sealed);
      expect(await catalog.getSecrets(module)).toBeUndefined();
    });

    it('stores a service with its tools, config, shared schemas, text and origin; a duplicate id is 409', async () => {
      const registry = {
        url: 'https://r.example.com/.well-known/registry.json',
        name: 'gh',
        version: '2.0.0',
      };
      await catalog.insertService(newService('github', { registry, source: 'https://x/gh.json' }));
      const row = await catalog.getService('github');
      expect(row).toEqual({
        id: 'github',
        name: 'Service github',
        description: 'the github service',
        adapter: 'openapi',
        enabled: false,
        hash: 'a'.repeat(64),
        source: 'https://x/gh.json',
        configSchema: { type: 'object', properties: { region: { type: 'string' } } },
        secretsSchema: { type: 'object' },
        adapterDomain: { baseUrl: 'https://github.example.com' },
        adapterVersion: '1.0.0',
        registry,
        toolCount: 3,
        enabledToolCount: 3,
        observeOutputs: true,
        createdAt: AT,
        updatedAt: AT,
      });
      expect(await catalog.getConfig({ kind: 'service', id: 'github' })).toEqual({ region: 'eu' });
      expect(await catalog.getServiceSchemas('github')).toEqual({
        result: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      expect(await catalog.getServiceDefinitionText('github')).toBe('{"service":"github"}');
      expect(await catalog.getServiceDefinitionText('nope')).toBeUndefined();
      const duplicate = await catalog.insertService(newService('github')).catch((error: unknown) => error);
      expect(isCyrnelError(duplicate) && duplicate.reason).toBe('service_exists');
      expect(duplicate).toMatchObject({ code: 'conflict', status: 409 });
      expect((await catalog.listServiceTools('github')).map((tool) => tool.id)).toEqual([
        'issues_create',
        'issues_list',
        'repos_get',
      ]);
    });

    it('lists services by id with filters and paging', async () => {
      await catalog.insertService(newService('beta', { enabled: true, description: 'Findable text' }));
      await catalog.insertService(newService('alpha'));
      await catalog.insertService(newService('gamma', { adapter: 'mcp' }));
      expect((await catalog.listServices({})).map((row) => row.id)).toEqual(['alpha', 'beta', 'gamma']);
      expect((await catalog.listServices({ enabled: true })).map((row) => row.id)).toEqual(['beta']);
      expect((await catalog.listServices({ adapter: 'mcp' })).map((row) => row.id)).toEqual(['gamma']);
      expect((await catalog.listServices({ query: 'FINDABLE' })).map((row) => row.id)).toEqual(['beta']);
      expect((await catalog.listServices({ afterId: 'alpha', limit: 1 })).map((row) => row.id)).toEqual([
        'beta',
      ]);
    });

    it('refuses to replace the definition of a service that is gone, writing nothing', async () => {
      const fields = { ...newService('gone'), tools: [newTool('orphan')] };
      await expect(catalog.replaceServiceDefinition('gone', fields, true, LATER)).rejects.toMatchObject({
        reason: 'service_not_found',
        status: 404,
      });
      expect(await catalog.getService('gone')).toBeUndefined();
      expect(await catalog.listTools({ serviceId: 'gone', limit: 10 })).toEqual([]);
    });

    it('replaces a definition and all tools in one step, and keeps what it is given', async () => {
      await catalog.insertService(newService('svc', { enabled: true }));
      await catalog.replaceServiceDefinition(
        'svc',
        {
          name: 'Renamed',
          description: 'v2',
          hash: 'b'.repeat(64),
          source: null,
          definition: 'v2 text',
          configSchema: {},
          secretsSchema: {},
          adapterDomain: { layout: 2 },
          adapterVersion: '2.0.0',
          registry: null,
          tools: [newTool('issues_list', { enabled: false }), newTool('added')],
        },
        false,
        LATER,
      );
      expect(await catalog.getService('svc')).toMatchObject({
        name: 'Renamed',
        enabled: false,
        hash: 'b'.repeat(64),
        adapterDomain: { layout: 2 },
        adapterVersion: '2.0.0',
        toolCount: 2,
        enabledToolCount: 1,
        updatedAt: LATER,
      });
      expect(await catalog.getServiceSchemas('svc')).toBeUndefined();
      expect(await catalog.getServiceDefinitionText('svc')).toBe('v2 text');
      expect((await catalog.listTools({ serviceId: 'svc' })).map((tool) => [tool.id, tool.enabled])).toEqual([
        ['added', true],
        ['issues_list', false],
      ]);
      expect(await catalog.getTool('svc', 'issues_create')).toBeUndefined();
      // Config survives a replacement: it belongs to the service, not to the definition.
      expect(await catalog.getConfig({ kind: 'service', id: 'svc' })).toEqual({ region: 'eu' });
    });

    it('flags services and tools, and answers the gate without schemas', async () => {
      await catalog.insertService(newService('svc'));
      expect(await catalog.setServiceEnabled('svc', true, LATER)).toBe(true);
      expect(await catalog.setServiceEnabled('nope', true, LATER)).toBe(false);
      expect(await catalog.setToolEnabled('svc', 'issues_list', false, LATER)).toBe(true);
      expect(await catalog.setToolEnabled('svc', 'nope', false, LATER)).toBe(false);
      expect(await catalog.getToolGate('svc', 'issues_list')).toEqual({
        enabled: false,
        serviceEnabled: true,
        adapter: 'openapi',
        serviceHash: 'a'.repeat(64),
      });
      expect(await catalog.getToolGate('svc', 'nope')).toBeUndefined();
      expect(await catalog.getTool('svc', 'repos_get')).toMatchObject({
        serviceId: 'svc',
        id: 'repos_get',
        enabled: true,
        serviceEnabled: true,
        adapter: 'openapi',
        serviceHash: 'a'.repeat(64),
        outputSchema: { $ref: '#/$defs/result' },
        adapterDomain: { route: '/repos_get' },
      });
      expect((await catalog.listTools({ enabled: false })).map((tool) => tool.id)).toEqual(['issues_list']);
      expect(
        (await catalog.listTools({ after: { serviceId: 'svc', toolId: 'issues_create' }, limit: 1 })).map(
          (tool) => tool.id,
        ),
      ).toEqual(['issues_list']);
    });

    it('deletes a service with its tools, config and secrets', async () => {
      await catalog.insertService(
        newService('svc', { secrets: { keyId: 'k', iv: 'aXY=', tag: 'dGFn', ciphertext: 'Y2lwaGVy' } }),
      );
      expect(await catalog.deleteService('svc')).toBe(true);
      expect(await catalog.getService('svc')).toBeUndefined();
      expect(await catalog.listTools({ serviceId: 'svc' })).toEqual([]);
      expect(await catalog.getConfig({ kind: 'service', id: 'svc' })).toBeUndefined();
      expect(await catalog.getSecrets({ kind: 'service', id: 'svc' })).toBeUndefined();
      expect(await catalog.deleteService('svc')).toBe(false);
      // The id is free again.
      await catalog.insertService(newService('svc'));
      expect((await catalog.getService('svc'))?.toolCount).toBe(3);
    });

    it('answers copies: changing what it gave or was given changes nothing stored', async () => {
      const service = newService('svc', { config: { nested: { a: 1 } } });
      await catalog.insertService(service);
      (service.config.nested as { a: number }).a = 2;
      const config = (await catalog.getConfig({ kind: 'service', id: 'svc' })) as { nested: { a: number } };
      expect(config).toEqual({ nested: { a: 1 } });
      config.nested.a = 3;
      const tool = await catalog.getTool('svc', 'repos_get');
      (tool?.adapterDomain as { route: string }).route = '/changed';
      const row = await catalog.getService('svc');
      (row?.configSchema as { type: string }).type = 'string';
      expect(await catalog.getConfig({ kind: 'service', id: 'svc' })).toEqual({ nested: { a: 1 } });
      expect((await catalog.getTool('svc', 'repos_get'))?.adapterDomain).toEqual({ route: '/repos_get' });
      expect((await catalog.getService('svc'))?.configSchema).toMatchObject({ type: 'object' });
    });

    it('matches service queries as plain text, LIKE wildcards included', async () => {
      await catalog.insertService(newService('alpha'));
      await catalog.insertService(newService('beta'));
      expect((await catalog.listServices({ query: 'THE ALPHA' })).map((row) => row.id)).toEqual(['alpha']);
      expect(await catalog.listServices({ query: '%' })).toEqual([]);
      expect(await catalog.listServices({ query: '_' })).toEqual([]);
      expect(await catalog.listServices({ limit: 0 })).toEqual([]);
    });

    it('dates a service by its last change, its tools flags included, and stores no empty shared schemas', async () => {
      await catalog.insertService(newService('svc', { schemas: {} }));
      expect(await catalog.getServiceSchemas('svc')).toBeUndefined();
      expect(await catalog.getServiceSchemas('nope')).toBeUndefined();
      await catalog.setToolEnabled('svc', 'repos_get', false, LATER);
      expect(await catalog.getService('svc')).toMatchObject({
        createdAt: AT,
        updatedAt: LATER,
        enabledToolCount: 2,
      });
    });

    it('counts its writes for other hosts with both revision methods or neither', async () => {
      expect(catalog.catalogRevision === undefined).toBe(catalog.bumpCatalogRevision === undefined);
      if (!catalog.catalogRevision || !catalog.bumpCatalogRevision) return;
      const before = await catalog.catalogRevision();
      expect(await catalog.bumpCatalogRevision()).toBe(before + 1);
      expect(await catalog.catalogRevision()).toBe(before + 1);
    });

    catalogPolicyCases(() => catalog);
    catalogConnectionCases(() => catalog);
    catalogObservedCases(() => catalog);

    toolSearchContract(() => catalog);
  });
}
