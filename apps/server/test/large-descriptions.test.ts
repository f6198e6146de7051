import { describe, expect, it } from 'vitest';
import { useServer } from './helpers';

// Synthetic stand-ins for descriptions too large to install without shared schemas: generated here, so the
// test needs no download and reproduces the shapes, not the bytes.

/** Stripe's shape: ≈ 500 operations over a web of 1,000 schemas with expandable `anyOf: [string, {$ref}]` fields. */
function stripeLike(): string {
  const schemas: Record<string, unknown> = {};
  const count = 1000;
  for (let i = 0; i < count; i++) {
    const properties: Record<string, unknown> = {
      id: { type: 'string', description: `Unique identifier of object ${i}.` },
      object: { type: 'string', enum: [`obj_${i}`] },
      created: { type: 'integer' },
      metadata: { type: 'object', additionalProperties: { type: 'string' }, nullable: true },
    };
    for (let k = 1; k <= 12; k++) {
      const target = (i * 7 + k * 13) % count;
      properties[`link_${k}`] = {
        anyOf: [{ type: 'string', maxLength: 5000 }, { $ref: `#/components/schemas/obj_${target}` }],
        description: `The linked object (expandable).`,
        nullable: true,
      };
    }
    properties.items = { type: 'array', items: { $ref: `#/components/schemas/obj_${(i + 1) % count}` } };
    schemas[`obj_${i}`] = { type: 'object', properties, required: ['id', 'object'], title: `Object ${i}` };
  }
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 500; i++) {
    const schema = { $ref: `#/components/schemas/obj_${(i * 2) % count}` };
    paths[`/v1/things_${i}/{id}`] = {
      get: {
        operationId: `GetThing${i}`,
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 5000 } },
          { name: 'expand', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } },
      },
      post: {
        operationId: `PostThing${i}`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { content: { 'application/json': { schema } } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } },
      },
    };
  }
  return JSON.stringify({
    openapi: '3.0.0',
    info: { title: 'Stripe-like', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths,
    components: { schemas },
  });
}

/** Microsoft Graph's shape: ≈ 15,000 operations over 4,000 schemas with deep `allOf` inheritance. */
function graphLike(): string {
  const schemas: Record<string, unknown> = {
    'microsoft.graph.entity': { type: 'object', properties: { id: { type: 'string' } } },
  };
  const count = 4000;
  for (let i = 0; i < count; i++) {
    // Chains 20 deep: each type inherits from the one before it in its chain.
    const parent = i % 20 === 0 ? 'microsoft.graph.entity' : `microsoft.graph.t${i - 1}`;
    schemas[`microsoft.graph.t${i}`] = {
      allOf: [
        { $ref: `#/components/schemas/${parent}` },
        {
          title: `t${i}`,
          type: 'object',
          properties: {
            [`p${i}`]: { type: 'string', nullable: true },
            [`n${i}`]: { type: 'integer', format: 'int32' },
            related: {
              type: 'array',
              items: { $ref: `#/components/schemas/microsoft.graph.t${(i * 31) % count}` },
            },
            '@odata.type': { type: 'string' },
          },
        },
      ],
    };
  }
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 5000; i++) {
    const schema = { $ref: `#/components/schemas/microsoft.graph.t${i % count}` };
    const collection = {
      type: 'object',
      properties: { value: { type: 'array', items: schema }, '@odata.nextLink': { type: 'string' } },
    };
    paths[`/things${i}/{thing-id}`] = {
      get: {
        operationId: `things${i}.get`,
        parameters: [{ name: 'thing-id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } },
      },
      patch: {
        operationId: `things${i}.update`,
        parameters: [{ name: 'thing-id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: { '204': { description: 'done' } },
      },
    };
    paths[`/things${i}`] = {
      get: {
        operationId: `things${i}.list`,
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: collection } } } },
      },
    };
  }
  return JSON.stringify({
    openapi: '3.0.4',
    info: { title: 'Graph-like', version: '1' },
    servers: [{ url: 'https://graph.example.com/v1.0' }],
    paths,
    components: { schemas },
  });
}

const mib = (n: number) => Math.round(n / 1024 / 1024);

describe('large descriptions with shared schemas', () => {
  const { api } = useServer();

  for (const [id, build, tools, sample] of [
    ['stripe', stripeLike, 1000, 'PostThing7'],
    ['graph', graphLike, 15000, 'things7_update'],
  ] as const) {
    it(`installs a ${id}-shaped description with every operation a tool, validates a call, renders docs and selected types`, async () => {
      const definition = build();
      const started = performance.now();
      const installed = await api('POST', '/services', { id, adapter: 'openapi', definition, enabled: true });
      const installMs = Math.round(performance.now() - started);
      expect(installed.status, installed.text.slice(0, 500)).toBe(201);
      expect(installed.body.toolCount).toBe(tools);
      const ids = (await api('GET', `/tools?serviceId=${id}&limit=100`)).body.items.map(
        (t: { id: string }) => t.id,
      );
      const tool = ids.includes(sample) ? sample : (ids[0] as string);

      // A call's validation resolves the shared schemas: a body of the wrong type is a 400.
      const bad = await api('POST', '/processes', {
        code: `try { await cyrnel.services.${id}.tools.${tool}.invoke({ path: { ${id === 'stripe' ? 'id' : '"thing-id"'}: 'x' }, body: { id: 1 } }); } catch (e) { cyrnel.output({ status: e.status, message: e.message }); }`,
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

      const unknown = await api('GET', `/environment/types?tools=${id}.nope,other.x&services=missing`);
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toContain('unknown services: missing');
      expect(unknown.body.error).toMatch(
        new RegExp(`unknown tools: (${id}\\.nope, other\\.x|other\\.x, ${id}\\.nope)`),
      );

      const memory = process.memoryUsage();
      console.log(
        `${id}: ${tools} tools from ${mib(definition.length)} MiB installed in ${installMs} ms; ` +
          `selected types ${types.text.length} bytes; rss ${mib(memory.rss)} MiB, heap ${mib(memory.heapUsed)} MiB`,
      );
    }, 300_000);
  }
});
