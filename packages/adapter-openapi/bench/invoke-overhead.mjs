// Benchmark (not a test): per-invoke overhead of the adapter against an echo server on 127.0.0.1,
// compared with a direct fetch (undici) and a direct node:http keep-alive request of the same call.
// Run after `pnpm build`: node bench/invoke-overhead.mjs
import http from 'node:http';
import { instantiate } from '../dist/index.js';

const N = Number(process.env.N ?? 3000);
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, length: Buffer.concat(chunks).length }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const document = {
  openapi: '3.0.3',
  info: { title: 'bench', version: '1' },
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
  security: [{ key: [] }],
  paths: {
    '/items/{id}': {
      post: {
        operationId: 'update',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
        ],
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
};
const adapter = instantiate();
await adapter.setup({ config: {}, secrets: {}, logger: console });
const definition = await adapter.generateDefinition(JSON.stringify(document));
await adapter.hydrateService({
  id: 'bench',
  adapterDomain: definition.adapterDomain,
  tools: Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }])),
  config: { baseUrl: base, timeoutMs: 30000 },
  secrets: { key: 'k' },
});
const parameters = {
  path: { id: 'a 1' },
  query: { tags: ['x', 'y'] },
  body: { name: 'n', values: [1, 2, 3] },
};
const url = `${base}/items/a%201?tags=x&tags=y`;
const body = JSON.stringify(parameters.body);
const headers = { accept: 'application/json', 'x-key': 'k', 'content-type': 'application/json' };

const agent = new http.Agent({ keepAlive: true });
const direct = {
  adapter: async () => (await adapter.invoke({ serviceId: 'bench', toolId: 'update', parameters })).body,
  fetch: async () => (await fetch(url, { method: 'POST', headers, body })).json(),
  'node:http': () =>
    new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      });
      req.on('error', reject);
      req.end(body);
    }),
};

async function measure(fn) {
  for (let i = 0; i < 300; i++) await fn(); // warm-up: JIT and connection pools
  const start = performance.now();
  for (let i = 0; i < N; i++) await fn();
  return ((performance.now() - start) * 1000) / N;
}

const results = {};
for (let round = 0; round < 3; round++) {
  for (const [name, fn] of Object.entries(direct)) {
    const us = await measure(fn);
    results[name] = Math.min(results[name] ?? Number.POSITIVE_INFINITY, us);
  }
}
console.log(
  JSON.stringify(
    {
      requests: N,
      microsecondsPerSequentialRequest: Object.fromEntries(
        Object.entries(results).map(([k, v]) => [k, Math.round(v)]),
      ),
      adapterMinusFetchUs: Math.round(results.adapter - results.fetch),
      adapterMinusNodeHttpUs: Math.round(results.adapter - results['node:http']),
    },
    null,
    2,
  ),
);
await adapter.teardown();
agent.destroy();
server.close();
