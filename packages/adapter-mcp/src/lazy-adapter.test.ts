import { describe, expect, it } from 'vitest';
import { FIXTURE, nodeServer } from '../test/harness';
import { createMcpAdapter } from './lazy-adapter';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('createMcpAdapter (its implementation loaded on first use)', () => {
  it('tells which services sign in from the definition alone, and drops what it never held', async () => {
    const adapter = createMcpAdapter();
    const http = { transport: 'http', url: 'https://mcp.example.com/mcp', headers: {} };
    expect(adapter.authorization?.signsIn({ adapterDomain: { spec: { ...http, oauth: {} } } })).toBe(true);
    expect(adapter.authorization?.signsIn({ adapterDomain: { spec: http } })).toBe(false);
    expect(adapter.authorization?.signsIn({ adapterDomain: {} })).toBe(false);
    await expect(adapter.dehydrateService('never-hydrated')).resolves.toBeUndefined();
    await adapter.teardown();
  });

  it('sets the loaded adapter up with the latest setup, also one made before it was loaded', async () => {
    const adapter = createMcpAdapter();
    const definition = nodeServer(FIXTURE);
    await adapter.setup({
      config: { allowedCommands: [], connectTimeoutMs: 30_000 },
      secrets: {},
      logger: silent,
    });
    // The first call loads the implementation, set up with the config above: the command is refused.
    await expect(adapter.generateDefinition(definition)).rejects.toMatchObject({ reason: 'forbidden' });
    await adapter.teardown();
    await adapter.setup({
      config: { allowedCommands: [process.execPath], connectTimeoutMs: 30_000 },
      secrets: {},
      logger: silent,
    });
    const generated = await adapter.generateDefinition(definition);
    expect(generated.tools.length).toBeGreaterThan(0);
    await adapter.teardown();
  });
});
