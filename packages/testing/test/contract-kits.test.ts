import type { AdapterModule, ServiceState } from '@cyrnel/sdk';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { checkAdapterFixture } from '../src/adapter-contract';
import { checkPrograms } from '../src/environment-contract';
import { runAdapterContract } from '../src/index';

/**
 * A small real adapter: its definition is a JSON array of tool names, each call answers its
 * parameters, and a tool named `slow` (when the definition has it) answers only once aborted.
 */
function echoAdapter(): AdapterModule {
  const services = new Map<string, ServiceState>();
  return {
    async setup() {},
    async teardown() {
      services.clear();
    },
    async generateDefinition(text) {
      const names: unknown = JSON.parse(text);
      if (!Array.isArray(names) || names.some((name) => typeof name !== 'string'))
        throw new Error('the definition must be a JSON array of tool names');
      return {
        name: 'echo',
        description: 'Echoes the parameters of each call',
        configSchema: { type: 'object', properties: {} },
        secretsSchema: { type: 'object', properties: {} },
        adapterDomain: {},
        tools: (names as string[]).map((name) => ({
          id: name,
          name,
          description: `Answers the parameters given to ${name}`,
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          adapterDomain: {},
        })),
      };
    },
    async hydrateService(state) {
      services.set(state.id, state);
    },
    async dehydrateService(id) {
      services.delete(id);
    },
    async invoke({ serviceId, toolId, parameters, signal }) {
      const service = services.get(serviceId);
      if (!service || !(toolId in service.tools)) throw new Error(`unknown tool ${serviceId}.${toolId}`);
      if (toolId === 'slow') {
        await new Promise((_, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      return { tool: toolId, parameters };
    },
  };
}

const call = {
  toolId: 'ping',
  parameters: { hello: 'world' },
  check: (result: unknown) => expect(result).toEqual({ tool: 'ping', parameters: { hello: 'world' } }),
};

// An adapter none of whose calls can stall: no slowCall, so no abort case.
runAdapterContract({
  name: 'echo without stalls',
  create: echoAdapter,
  fixture: () => ({ definition: '["ping"]', invalidDefinition: '{"not": "an array"}', call }),
});

// The same adapter with a tool that waits: the abort case is registered and passes.
runAdapterContract({
  name: 'echo with a stalling tool',
  create: echoAdapter,
  fixture: () => ({ definition: '["ping", "slow"]', invalidDefinition: '{"not": "an array"}', call }),
  slowCall: { toolId: 'slow', parameters: {} },
});

const ABORT_CASE = 'stops a call when its signal aborts, rejecting promptly';

describe('runAdapterContract', () => {
  it('registers the abort case only for an adapter given a slowCall, and the others for both', ({ task }) => {
    const suite = (name: string) =>
      task.file.tasks.find((candidate) => candidate.name === `AdapterModule contract: ${name}`);
    const names = (name: string) => {
      const found = suite(name);
      return found && 'tasks' in found ? found.tasks.map((test) => test.name) : [];
    };
    const without = names('echo without stalls');
    const withSlow = names('echo with a stalling tool');
    expect(without.length).toBeGreaterThan(5);
    expect(without).not.toContain(ABORT_CASE);
    expect(withSlow).toContain(ABORT_CASE);
    expect(withSlow.filter((name) => name !== ABORT_CASE)).toEqual(without);
    // Nothing of either suite is skipped.
    expect(
      [suite('echo without stalls'), suite('echo with a stalling tool')].flatMap((found) =>
        found && 'tasks' in found
          ? found.tasks.filter((test) => test.mode === 'skip' || test.mode === 'todo')
          : [],
      ),
    ).toEqual([]);
  });
});

describe('checkAdapterFixture', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  afterAll(() => {
    warn.mockRestore();
  });

  it('answers a complete fixture as given', () => {
    const fixture = { definition: '[]', invalidDefinition: '{}', call, config: { a: 1 } };
    expect(checkAdapterFixture('echo', fixture, false)).toBe(fixture);
  });

  it('names every required part a fixture lacks, instead of a TypeError in a case', () => {
    expect(() => checkAdapterFixture('soap', { definition: '<wsdl/>' }, false)).toThrow(
      'runAdapterContract(soap): the fixture lacks `invalidDefinition` (a text it must refuse), `call` ({ toolId, parameters, check }: a call that succeeds and a check of its result)',
    );
    expect(() => checkAdapterFixture('soap', undefined, false)).toThrow(
      /the fixture lacks `definition` .*`invalidDefinition` .*`call` .*\(it is not an object\)$/,
    );
    expect(() =>
      checkAdapterFixture(
        'soap',
        { definition: '', invalidDefinition: '', call: { ...call, check: 'no' } },
        false,
      ),
    ).toThrow(/the fixture lacks `call`/);
    expect(() =>
      checkAdapterFixture('soap', { definition: '', invalidDefinition: '', call, secrets: 'x' }, false),
    ).toThrow(/the fixture lacks `secrets` \(an object, or left out\)/);
  });

  it('says that a slowCall in the fixture is not read, where kits written before gave it', () => {
    const fixture = {
      definition: '[]',
      invalidDefinition: '{}',
      call,
      slowCall: { toolId: 'slow', parameters: {} },
    };
    warn.mockClear();
    checkAdapterFixture('legacy', fixture, true);
    expect(warn).not.toHaveBeenCalled();
    checkAdapterFixture('legacy', fixture, false);
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining("runAdapterContract(legacy): the fixture's `slowCall` is not read"),
    );
  });
});

describe('checkPrograms (the environment kit)', () => {
  it('names every required program that is missing, when the suite is declared', () => {
    expect(() => checkPrograms('py', { outputs: 'print()', waits: 'sleep' })).toThrow(
      'runEnvironmentContract(py): programs lacks `throws` (throws boom), `callsTool` (calls math.add)',
    );
    expect(() =>
      checkPrograms('py', { outputs: '', throws: '', callsTool: '', waits: '', loops: 1 }),
    ).toThrow(/programs lacks `loops` \(a string, or left out\)$/);
    expect(() => checkPrograms('py', { outputs: '', throws: '', callsTool: '', waits: '' })).not.toThrow();
  });
});
