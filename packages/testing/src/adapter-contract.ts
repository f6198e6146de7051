import {
  type AdapterModule,
  isPlainObject,
  isValidIdentifier,
  type ModuleSetupContext,
  type ServiceDefinition,
  type ServiceState,
} from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A call whose answer takes far longer than the test (a stalled upstream): aborting must end it. */
export interface AdapterContractSlowCall {
  readonly toolId: string;
  readonly parameters: Record<string, unknown>;
}

/** What an adapter's kit runs against: texts it reads and calls it answers. */
export interface AdapterContractFixture {
  /** A definition text the adapter accepts. */
  readonly definition: string;
  /** A text it must refuse (throw from `generateDefinition`). */
  readonly invalidDefinition: string;
  /** The service's config and secrets in the hydrated state (defaults applied). */
  readonly config?: Record<string, unknown>;
  readonly secrets?: Record<string, unknown>;
  /** A call that succeeds, and a check of its result. */
  readonly call: {
    readonly toolId: string;
    readonly parameters: Record<string, unknown>;
    readonly check: (result: unknown) => void;
  };
  /**
   * @deprecated Give it as {@link AdapterContractOptions.slowCall}: the kit must know before the
   * tests whether the abort case exists. Read here only to say so.
   */
  readonly slowCall?: AdapterContractSlowCall;
}

/** Options of {@link runAdapterContract}. */
export interface AdapterContractOptions {
  /** Shown in the suite's name, e.g. `openapi`. */
  readonly name: string;
  /** A fresh adapter instance (what the module's `instantiate()` answers). */
  create(): AdapterModule | Promise<AdapterModule>;
  /** The module's setup context (config, secrets, outbound); a silent logger and `{}` by default. */
  readonly setup?: Partial<ModuleSetupContext>;
  /** The fixture, read once before the tests (start upstream servers before it is called). */
  fixture(): AdapterContractFixture | Promise<AdapterContractFixture>;
  /**
   * A call of the fixture's definition whose answer takes far longer than the test (a stalled
   * upstream, a tool that waits): the kit aborts it and expects a prompt rejection. Leave it out
   * when no call of the adapter can stall (nothing it calls waits): the abort case is then not
   * registered at all (never a skipped test).
   */
  readonly slowCall?: AdapterContractSlowCall;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Every `#/$defs/<name>` reference in `value`. */
function localRefs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) localRefs(item, found);
  else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/'))
        found.push(item.slice(8));
      else localRefs(item, found);
    }
  }
  return found;
}

const isText = (value: unknown) => typeof value === 'string';
const isCall = (value: unknown) =>
  isPlainObject(value) && typeof value.toolId === 'string' && isPlainObject(value.parameters);

/**
 * `fixture` as a complete {@link AdapterContractFixture}, or an error naming each required part it
 * lacks (or gives in the wrong shape): an incomplete fixture fails the suite saying what to add,
 * instead of with a `TypeError` inside a case.
 *
 * @example
 * ```ts
 * checkAdapterFixture('soap', { definition: '<wsdl/>' }, false);
 * // Error: runAdapterContract(soap): the fixture lacks `invalidDefinition` (a text it must refuse), `call` (…)
 * ```
 */
export function checkAdapterFixture(
  name: string,
  fixture: unknown,
  slowCallOption: boolean,
): AdapterContractFixture {
  const given = isPlainObject(fixture) ? fixture : {};
  const call = given.call;
  const problems = [
    ...(isText(given.definition) ? [] : ['`definition` (a definition text the adapter accepts)']),
    ...(isText(given.invalidDefinition) ? [] : ['`invalidDefinition` (a text it must refuse)']),
    ...(isCall(call) && typeof (call as { check?: unknown }).check === 'function'
      ? []
      : ['`call` ({ toolId, parameters, check }: a call that succeeds and a check of its result)']),
    ...(given.config === undefined || isPlainObject(given.config)
      ? []
      : ['`config` (an object, or left out)']),
    ...(given.secrets === undefined || isPlainObject(given.secrets)
      ? []
      : ['`secrets` (an object, or left out)']),
  ];
  if (problems.length > 0) {
    throw new Error(
      `runAdapterContract(${name}): the fixture lacks ${problems.join(', ')}${isPlainObject(fixture) ? '' : ' (it is not an object)'}`,
    );
  }
  // Where kits written before gave it: not an error (their suites keep passing), but said, since
  // their abort case is no longer run.
  if (given.slowCall !== undefined && !slowCallOption) {
    console.warn(
      `runAdapterContract(${name}): the fixture's \`slowCall\` is not read: give it beside \`fixture\` in the options, so that the abort case is registered`,
    );
  }
  return given as unknown as AdapterContractFixture;
}

/** The `ServiceState` the host would hydrate for `definition`: its domains, config and decrypted secrets. */
export function stateOf(
  id: string,
  definition: ServiceDefinition,
  settings: { config?: Record<string, unknown>; secrets?: Record<string, unknown> } = {},
): ServiceState {
  return {
    id,
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(
      definition.tools.map((tool) => [tool.id, { adapterDomain: tool.adapterDomain }]),
    ),
    config: settings.config ?? {},
    secrets: settings.secrets ?? {},
  };
}

/**
 * The `AdapterModule` contract as a Vitest suite: a pure, deterministic
 * `generateDefinition` whose output the host can store (identifier ids, object schemas, resolvable
 * shared-schema references, JSON), refusals by throwing, `hydrateService` replacing state,
 * idempotent `dehydrateService`, `invoke` rejecting unknown pairs and honouring its abort signal
 * (with `slowCall`), and a second life after `teardown`. Call it at the top level of a test file.
 * A fixture missing a required part fails the suite with an error naming it.
 *
 * @example
 * ```ts
 * import adapter from '@cyrnel/adapter-openapi';
 * import { runAdapterContract } from '@cyrnel/testing';
 *
 * runAdapterContract({
 *   name: 'openapi',
 *   create: () => adapter.instantiate(),
 *   fixture: () => ({ definition, invalidDefinition: 'not a document', call }),
 *   slowCall: { toolId: 'slow', parameters: {} }, // left out: no abort case
 * });
 * ```
 */
export function runAdapterContract(options: AdapterContractOptions): void {
  describe(`AdapterModule contract: ${options.name}`, () => {
    let adapter: AdapterModule;
    let fixture: AdapterContractFixture;
    let definition: ServiceDefinition;
    const context = (): ModuleSetupContext => ({ config: {}, secrets: {}, logger: silent, ...options.setup });
    const state = (id: string) =>
      stateOf(id, definition, {
        ...(fixture.config ? { config: fixture.config } : {}),
        ...(fixture.secrets ? { secrets: fixture.secrets } : {}),
      });
    const invoke = (
      serviceId: string,
      toolId: string,
      parameters: Record<string, unknown>,
      signal?: AbortSignal,
    ) => adapter.invoke({ serviceId, toolId, parameters, signal: signal ?? new AbortController().signal });

    beforeAll(async () => {
      fixture = checkAdapterFixture(options.name, await options.fixture(), options.slowCall !== undefined);
      adapter = await options.create();
      await adapter.setup(context());
      definition = await adapter.generateDefinition(fixture.definition);
    });
    afterAll(async () => {
      await adapter?.teardown();
    });

    it('generates a definition the host can store: identifiers, strings, object schemas, JSON', () => {
      expect(typeof definition.name).toBe('string');
      expect(typeof definition.description).toBe('string');
      expect(isPlainObject(definition.configSchema)).toBe(true);
      expect(isPlainObject(definition.secretsSchema)).toBe(true);
      expect(isPlainObject(definition.adapterDomain)).toBe(true);
      expect(definition.tools.length).toBeGreaterThan(0);
      const ids = definition.tools.map((tool) => tool.id);
      expect(ids.filter((id) => !isValidIdentifier(id))).toEqual([]);
      expect(new Set(ids).size).toBe(ids.length);
      for (const tool of definition.tools) {
        expect({ id: tool.id, name: typeof tool.name, description: typeof tool.description }).toEqual({
          id: tool.id,
          name: 'string',
          description: 'string',
        });
        expect(isPlainObject(tool.inputSchema) && isPlainObject(tool.outputSchema), tool.id).toBe(true);
        expect(isPlainObject(tool.adapterDomain), tool.id).toBe(true);
      }
      expect(JSON.parse(JSON.stringify(definition))).toEqual(definition);
    });

    it('references shared schemas only by names it defines', () => {
      const shared = definition.schemas ?? {};
      const unresolved = [
        ...definition.tools.flatMap((tool) =>
          [tool.inputSchema, tool.outputSchema].flatMap((schema) => {
            const own = isPlainObject(schema.$defs) ? schema.$defs : {};
            return localRefs(schema).filter(
              (name) => !Object.hasOwn(shared, name) && !Object.hasOwn(own, name),
            );
          }),
        ),
        ...localRefs(Object.values(shared)).filter((name) => !Object.hasOwn(shared, name)),
      ];
      expect(unresolved).toEqual([]);
    });

    it('is deterministic: the same text gives the same definition (regeneration relies on it)', async () => {
      expect(await adapter.generateDefinition(fixture.definition)).toEqual(definition);
    });

    it('lists the same tools again when it can refresh (refreshDefinition is optional)', async () => {
      if (!adapter.refreshDefinition) {
        // Without the hook the host answers a refresh with 409 refresh_not_supported.
        expect(adapter.refreshDefinition).toBeUndefined();
        return;
      }
      await adapter.hydrateService(state('contractR'));
      const again = await adapter.refreshDefinition(state('contractR'));
      expect(again.tools.map((tool) => tool.id)).toEqual(definition.tools.map((tool) => tool.id));
      expect(again.adapterDomain).toEqual(definition.adapterDomain);
      await adapter.dehydrateService('contractR');
    });

    it('refuses an invalid definition by throwing', async () => {
      await expect(adapter.generateDefinition(fixture.invalidDefinition)).rejects.toThrow();
    });

    it('invokes a hydrated service, and rejects unknown services and tools', async () => {
      await adapter.hydrateService(state('contractA'));
      fixture.call.check(await invoke('contractA', fixture.call.toolId, fixture.call.parameters));
      await expect(invoke('contractA', 'noSuchTool_x', {})).rejects.toThrow();
      await expect(invoke('neverHydrated', fixture.call.toolId, fixture.call.parameters)).rejects.toThrow();
    });

    it('replaces state on a second hydration and drops it on dehydration (idempotent)', async () => {
      await adapter.hydrateService(state('contractB'));
      await adapter.hydrateService(state('contractB'));
      fixture.call.check(await invoke('contractB', fixture.call.toolId, fixture.call.parameters));
      await adapter.dehydrateService('contractB');
      await adapter.dehydrateService('contractB');
      await adapter.dehydrateService('neverHydrated');
      await expect(invoke('contractB', fixture.call.toolId, fixture.call.parameters)).rejects.toThrow();
    });

    // Only for an adapter with a call that can stall: without one the case does not exist.
    const { slowCall } = options;
    if (slowCall !== undefined) {
      it('stops a call when its signal aborts, rejecting promptly', async () => {
        await adapter.hydrateService(state('contractC'));
        const controller = new AbortController();
        const call = invoke('contractC', slowCall.toolId, slowCall.parameters, controller.signal);
        const outcome = call.then(
          () => 'resolved',
          () => 'rejected',
        );
        setTimeout(() => controller.abort(new Error('deadline')), 50);
        const raced = await Promise.race([
          outcome,
          new Promise((resolve) => setTimeout(() => resolve('still pending'), 5000)),
        ]);
        expect(raced).toBe('rejected');
      });
    }

    it('works again after teardown and a new setup', async () => {
      await adapter.teardown();
      await adapter.setup(context());
      await adapter.hydrateService(state('contractD'));
      fixture.call.check(await invoke('contractD', fixture.call.toolId, fixture.call.parameters));
    });
  });
}
