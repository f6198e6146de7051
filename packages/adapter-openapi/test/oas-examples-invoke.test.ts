import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantiate } from '../src/index';
import { type Echo, type EchoServer, startEchoServer } from './echo-server';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('@readme/oas-examples/package.json'));

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return /\.(json|ya?ml)$/.test(name) ? [path] : [];
    });
}

let server: EchoServer;

beforeAll(async () => {
  server = await startEchoServer();
});

afterAll(async () => {
  await server.close();
});

describe('@readme/oas-examples invoked', () => {
  it('does invoke every tool of every document against the echo server', async () => {
    const adapter = instantiate();
    let invoked = 0;
    const refused: string[] = [];
    for (const file of ['2.0', '3.0', '3.1'].flatMap((v) => walk(join(root, v)))) {
      const definition = await adapter.generateDefinition(readFileSync(file, 'utf8'));
      const secretsProps = (definition.secretsSchema.properties ?? {}) as Record<string, { type: string }>;
      const secrets = Object.fromEntries(
        Object.entries(secretsProps).map(([name, p]) => [
          name,
          p.type === 'object' ? { username: 'u', password: 'p' } : 'secret',
        ]),
      );
      await adapter.hydrateService({
        id: 'svc',
        adapterDomain: definition.adapterDomain,
        tools: Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }])),
        config: { baseUrl: `${server.url}/base`, timeoutMs: 5000 },
        secrets,
      });
      for (const tool of definition.tools) {
        const pathSlot = (tool.inputSchema.properties as Record<string, { properties?: object }>).path;
        const path = Object.fromEntries(Object.keys(pathSlot?.properties ?? {}).map((name) => [name, 'v 1']));
        const where = `${file} ${tool.id}`;
        const before = server.count();
        const outcome = await adapter
          .invoke({ serviceId: 'svc', toolId: tool.id, parameters: { path } })
          .catch((e: Error) => e);
        if (outcome instanceof Error) {
          // Only requirements naming an undeclared scheme or mutual TLS may stop a call, before any request.
          expect({ where, message: outcome.message }).toEqual({
            where,
            message: expect.stringMatching(/not declared in the document|mutual TLS is not supported/),
          });
          expect(server.count()).toBe(before);
          refused.push(where);
          continue;
        }
        const result = outcome as { status: number; body: Echo | null };
        expect({ where, status: result.status }).toEqual({ where, status: 200 });
        // Every call reaches the echo server (no document here declares an absolute URL that wins), and
        // no template variable is left: a literal or an encoded brace (%7B, %7D) would mean one was.
        expect({ where, echoed: result.body !== null && typeof result.body === 'object' }).toEqual({
          where,
          echoed: true,
        });
        const seenPath = (result.body as Echo).path;
        expect({ where, path: seenPath.startsWith('/base') && !/[{}]|%7B|%7D/i.test(seenPath) }).toEqual({
          where,
          path: true,
        });
        invoked++;
      }
    }
    expect(invoked).toBeGreaterThan(1000);
    expect(refused.every((where) => /response-http-behavior|mutualTLS/.test(where))).toBe(true);
    await adapter.teardown();
  });
});
