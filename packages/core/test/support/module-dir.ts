import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Calls custom test modules record, shared through a global (they are loaded with import()). */
export function moduleCalls(): unknown[][] {
  const store = globalThis as { __cyrnelModuleCalls?: unknown[][] };
  store.__cyrnelModuleCalls ??= [];
  return store.__cyrnelModuleCalls;
}

/** Source of a custom adapter module that records its lifecycle in {@link moduleCalls}. */
export function adapterSource(id: string, marker = 'v1'): string {
  return `
const calls = (globalThis.__cyrnelModuleCalls ??= []);
const states = new Map();
export default {
  configSchema: { type: 'object', properties: { greeting: { type: 'string', default: 'hi' } }, additionalProperties: false },
  secretsSchema: { type: 'object', properties: { apiKey: { type: 'string' } } },
  instantiate() {
    return {
      async setup(context) { calls.push(['setup', ${JSON.stringify(id)}, ${JSON.stringify(marker)}, context.config, Object.keys(context.secrets)]); },
      async teardown() { calls.push(['teardown', ${JSON.stringify(id)}, ${JSON.stringify(marker)}]); },
      async generateDefinition() {
        return { name: 'Custom', description: '', configSchema: {}, secretsSchema: {}, adapterDomain: {},
          tools: [{ id: 'hello', name: 'hello', description: 'says hello', inputSchema: { type: 'object' }, outputSchema: {}, adapterDomain: {} }] };
      },
      async hydrateService(state) { calls.push(['hydrate', state.id]); states.set(state.id, state); },
      async dehydrateService(serviceId) { calls.push(['dehydrate', serviceId]); states.delete(serviceId); },
      async invoke() { return { hello: ${JSON.stringify(marker)} }; },
    };
  },
};
`;
}

/** A `modules/` directory in the data directory with helpers to add and remove modules. */
export function moduleDir(dataDir: string) {
  const root = join(dataDir, 'modules');
  mkdirSync(root, { recursive: true });
  return {
    root,
    write(dir: string, manifest: unknown, files: Record<string, string> = {}) {
      const path = join(root, dir);
      mkdirSync(path, { recursive: true });
      if (manifest !== undefined) {
        writeFileSync(
          join(path, 'module.json'),
          typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
        );
      }
      for (const [name, content] of Object.entries(files)) writeFileSync(join(path, name), content);
    },
    remove(dir: string) {
      rmSync(join(root, dir), { recursive: true, force: true });
    },
  };
}

/** A valid manifest of a custom module. */
export function manifest(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: `Custom ${id}`,
    description: 'a custom module',
    type: 'adapter',
    main: 'index.mjs',
    version: '1.0.0',
    ...extra,
  };
}
