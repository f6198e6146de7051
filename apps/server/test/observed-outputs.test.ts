import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningServer } from '../src/index';
import { apiClient, type Json, startTestServer, tempDir } from './helpers';
import { everythingDefinition, expectNoValues, FIXTURE } from './observed-helpers';

const KEY = 'observed-outputs-key';
const SELECTION =
  'tools=everything.echo,everything.get_sum,everything.get_tiny_image,everything.get_structured_content';
/** The calls that teach the shapes, with distinctive values as arguments. */
const CALLS = `
  const tools = cyrnel.services.everything.tools;
  const echo = await tools.echo.invoke({ message: 'zebra-quartz-7781' });
  const sum = await tools.get_sum.invoke({ a: 7342915, b: 3 });
  const image = await tools.get_tiny_image.invoke({});
  const structured = await tools.get_structured_content.invoke({ location: 'New York' });
  cyrnel.output({ echo, sum, kinds: image.map((item) => typeof item), structured: typeof structured });
`;

describe('observed output shapes of MCP tools (server-everything over stdio, a SQLite file)', () => {
  let server: RunningServer;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let api: ReturnType<typeof apiClient>;

  const run = async (code: string) => {
    const response = await api('POST', '/processes', { code, wait: true, timeoutMs: 30_000 });
    expect(response.body).toMatchObject({ exitState: 'success' });
    return response.body as { output: Json };
  };
  const observed = async (toolId: string, serviceId = 'everything') =>
    (await api('GET', `/tools/${serviceId}/${toolId}`)).body.observedOutputSchema as Json;
  const learned = (toolId: string, serviceId = 'everything') =>
    vi.waitFor(async () => {
      const shape = await observed(toolId, serviceId);
      expect(shape).not.toBeNull();
      return shape;
    });

  beforeAll(async () => {
    dir = await tempDir();
    server = await startTestServer({ dataDir: dir.path, port: 0, apiKey: KEY });
    api = apiClient(server.url, KEY);
    await api('PATCH', '/modules/mcp/config', [
      { op: 'add', path: '/allowedCommands', value: [process.execPath] },
    ]);
    const installed = await api('POST', '/services', {
      id: 'everything',
      adapter: 'mcp',
      definition: everythingDefinition(),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({ observeOutputs: true });
    const fixture = await api('POST', '/services', {
      id: 'fx',
      adapter: 'mcp',
      definition: JSON.stringify({ transport: 'stdio', command: process.execPath, args: [FIXTURE] }),
      enabled: true,
    });
    expect(fixture.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await dir?.remove();
  });

  it('declares the results of tools without an output schema as observed, types only, after a few calls', async () => {
    const before = (await api('GET', `/environment/types?${SELECTION}`)).text;
    expect(before).toMatch(/echo: \{ invoke\(parameters: \{[^}]*\}\): Promise<unknown> \};/);
    expect(before).not.toContain('observed');
    const ran = await run(CALLS);
    expect(ran.output).toMatchObject({
      echo: 'Echo: zebra-quartz-7781',
      kinds: ['string', 'object', 'string'],
    });
    expect(await learned('echo')).toEqual({ type: 'string' });
    expect(await learned('get_tiny_image')).toEqual({
      type: 'array',
      items: {
        anyOf: [
          { type: 'string' },
          {
            type: 'object',
            properties: {
              type: { type: 'string' },
              data: { type: 'string' },
              mimeType: { type: 'string' },
            },
            required: ['type', 'data', 'mimeType'],
          },
        ],
      },
    });
    await learned('get_sum');
    // A tool that declares its output keeps its own schema.
    expect(await observed('get_structured_content')).toBeNull();
    const after = (await api('GET', `/environment/types?${SELECTION}`)).text;
    expect(after).toContain(
      '/** Echoes back the input string. Its result type is observed from past results (it declares none) and may be incomplete. */',
    );
    expect(after).toMatch(/echo: \{ invoke\(parameters: \{[^}]*\}\): Promise<string> \};/);
    expectNoValues(after);
    expectNoValues(JSON.stringify((await api('GET', '/tools/everything/echo')).body));
    expectNoValues(JSON.stringify((await api('GET', '/tools/everything/get_sum')).body));
    // The sandbox's discover.types and discover.tool say the same.
    const sandbox = await run(`
      const types = await cyrnel.discover.types({ tools: ['everything.echo', 'everything.get_sum'] });
      const echo = await cyrnel.discover.tool('everything', 'echo');
      cyrnel.output({ types, signature: echo.signature, shape: echo.observedOutputSchema });
    `);
    expect(sandbox.output.types).toContain('Promise<string>');
    expect(sandbox.output.types).toContain('observed from past results');
    expect(sandbox.output.signature).toMatch(/\) => Promise<string>$/);
    expect(sandbox.output.shape).toEqual({ type: 'string' });
    expectNoValues(JSON.stringify(sandbox.output));
    // The declarations type-check programs that use the observed type.
    const echoed = "await cyrnel.services.everything.tools.echo.invoke({ message: 'x' })";
    const good = await api('POST', '/processes', {
      code: `const text: string = ${echoed}; cyrnel.output({ text });`,
      check: true,
    });
    expect(good.body).toEqual({ diagnostics: [] });
    const mistyped = await api('POST', '/processes', { code: `const n: number = ${echoed};`, check: true });
    expect(mistyped.body.diagnostics).toMatchObject([{ code: 2322 }]);
  });

  it('forgets what it learned when turned off, learns nothing while off, and starts afresh when on', async () => {
    await run(CALLS);
    await learned('echo');
    const off = await api('POST', '/services/everything/observe-outputs', { enabled: false });
    expect(off.body).toMatchObject({ id: 'everything', observeOutputs: false });
    expect(await observed('echo')).toBeNull();
    await run(CALLS);
    expect(await observed('echo')).toBeNull();
    const types = (await api('GET', `/environment/types?${SELECTION}`)).text;
    expect(types).toContain('Promise<unknown>');
    expect(types).not.toContain('observed');
    expect((await api('GET', '/services/everything')).body).toMatchObject({ observeOutputs: false });
    const on = await api('POST', '/services/everything/observe-outputs', { enabled: true });
    expect(on.body).toMatchObject({ observeOutputs: true });
    expect(await observed('echo')).toBeNull();
    await run(CALLS);
    expect(await learned('echo')).toEqual({ type: 'string' });
    const refused = await api('POST', '/services/nope/observe-outputs', { enabled: false });
    expect(refused.body).toMatchObject({ reason: 'service_not_found' });
    const bad = await api('POST', '/services/everything/observe-outputs', { enabled: 'no' });
    expect(bad.body).toMatchObject({ reason: 'invalid_request' });
  });

  it("learns nothing from a principal's own connection, whose answers may name that person's data", async () => {
    const installed = await api('POST', '/services', {
      id: 'mine',
      adapter: 'mcp',
      definition: JSON.stringify({ transport: 'stdio', command: process.execPath, args: [FIXTURE] }),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    const carol = await api('POST', '/principals', { name: 'carol' });
    const key = await api('POST', '/keys', {
      name: "carol's agent",
      role: 'agent',
      principal: carol.body.id,
    });
    const own = await api('POST', '/services/mine/connections', { name: 'carol', owner: carol.body.id });
    expect(own.status).toBe(201);
    const keyed = (prefix: string) =>
      `cyrnel.output({ r: await cyrnel.services.mine.tools.keyed.invoke({ count: 3, prefix: '${prefix}' }) });`;
    // Carol's run uses her own connection: its answer's keys name her data.
    const hers = await apiClient(server.url, key.body.key)('POST', '/processes', {
      code: keyed('ivy_'),
      wait: true,
      timeoutMs: 30_000,
    });
    expect(hers.body).toMatchObject({ exitState: 'success' });
    // A run without a connection of its own uses the shared one: that answer is learned.
    await run(keyed('field_'));
    const shape = await vi.waitFor(async () => {
      const learnedShape = JSON.stringify(await observed('keyed', 'mine'));
      expect(learnedShape).toContain('field_0');
      return learnedShape;
    });
    expect(shape).not.toContain('ivy_');
  });

  it('keeps the shapes of hostile answers (deep, wide, many keys, data keys) within their bounds, and skips answers read as JSON text', async () => {
    await run(`
      const fx = cyrnel.services.fx.tools;
      await fx.deep.invoke({ depth: 60 });
      await fx.wide.invoke({ count: 20000 });
      await fx.keyed.invoke({ count: 5000, prefix: 'field_' });
      await fx.keyed.invoke({ count: 3, prefix: 'plum-velvet-3392@example.com#' });
      await fx.big.invoke({ mb: 1 });
      await fx.pid.invoke({});
    `);
    const shapes = {
      deep: await learned('deep', 'fx'),
      wide: await learned('wide', 'fx'),
      keyed: await learned('keyed', 'fx'),
    };
    expect(shapes.wide).toEqual({
      type: 'object',
      properties: { numbers: { type: 'array', items: { type: 'number' } } },
      required: ['numbers'],
    });
    // Keys of data (thousands of them, or with `@`) are a map: none of them is a property name.
    expect(shapes.keyed).toEqual({
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { id: { type: 'number' }, label: { type: 'string' } },
        required: ['id', 'label'],
      },
    });
    let depth = 0;
    for (let node = shapes.deep; node?.type === 'array'; node = node.items) depth++;
    expect(depth).toBeLessThanOrEqual(8);
    // 1 MB arrives as JSON text (parsed in the adapter's worker), never walked here: the call after
    // it is learned, it is not. 0.1 MB is parsed on the main thread, and a sample of it walked.
    await learned('pid', 'fx');
    expect(await observed('big', 'fx')).toBeNull();
    await run('await cyrnel.services.fx.tools.big.invoke({ mb: 0.1 });');
    expect(await learned('big', 'fx')).toMatchObject({ type: 'array', items: { type: 'object' } });
    const text = JSON.stringify(shapes) + (await api('GET', '/environment/types?services=fx')).text;
    expectNoValues(text);
    expect(text).not.toContain('field_1');
    expect(text).not.toContain('label-');
  });
});
