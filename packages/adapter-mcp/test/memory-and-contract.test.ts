import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdapterModule } from '@cyrnel/sdk';
import { runAdapterContract } from '@cyrnel/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { instantiate } from '../src/index';
import { FIXTURE, install, MEMORY, nodeServer, setUpAdapter } from './harness';

const dirs: string[] = [];
const adapters: AdapterModule[] = [];
afterAll(async () => {
  for (const adapter of adapters) await adapter.teardown();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('server-memory (a stateful knowledge graph on stdio)', () => {
  it('keeps the entities and relations one call creates for the next call to read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cyrnel-memory-'));
    dirs.push(dir);
    const { adapter } = await setUpAdapter();
    adapters.push(adapter);
    const definition = await install(
      adapter,
      'memory',
      nodeServer(MEMORY, [], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
    );
    expect(definition.tools.map((tool) => tool.id)).toEqual(
      expect.arrayContaining(['create_entities', 'create_relations', 'read_graph', 'search_nodes']),
    );
    const call = (toolId: string, parameters: Record<string, unknown>) =>
      adapter.invoke({ serviceId: 'memory', toolId, parameters });
    await call('create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        { name: 'Analytical Engine', entityType: 'machine', observations: [] },
      ],
    });
    await call('create_relations', {
      relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }],
    });
    const graph = (await call('read_graph', {})) as { entities: { name: string }[]; relations: unknown[] };
    expect(graph.entities.map((entity) => entity.name).sort()).toEqual(['Ada', 'Analytical Engine']);
    expect(graph.relations).toEqual([{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }]);
  });
});

runAdapterContract({
  name: 'mcp',
  create: () => instantiate(),
  setup: { config: { allowedCommands: [process.execPath], connectTimeoutMs: 30_000 } },
  fixture: () => ({
    definition: nodeServer(FIXTURE),
    invalidDefinition: '{"transport": "carrier-pigeon"}',
    config: { timeoutMs: 60_000 },
    call: {
      toolId: 'add',
      parameters: { a: 20, b: 22 },
      check: (result) => {
        expect(result).toEqual({ sum: 42 });
      },
    },
  }),
  slowCall: { toolId: 'slow', parameters: { ms: 600_000 } },
});
