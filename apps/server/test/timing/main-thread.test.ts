import { describe, expect, it } from 'vitest';
import { type apiClient, manyToolsSpec, useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

// No input (sandbox code, a large catalog) may stall the server's event loop. Each attack runs
// while `/health` is probed back to back, after a second of probes without it: the worst probe
// must stay within the bound of `vitest.timing.ts` (ten times that baseline, at least a floor).

/** An OpenAPI document whose one operation has a backtracking-prone pattern and a url format. */
function patternSpec(): Record<string, unknown> {
  return {
    openapi: '3.0.3',
    info: { title: 'Patterns', version: '1.0.0' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths: {
      '/items': {
        get: {
          operationId: 'find',
          parameters: [
            { name: 'code', in: 'query', schema: { type: 'string', pattern: '^(a+)+$' } },
            { name: 'link', in: 'query', schema: { type: 'string', format: 'url' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
}

/**
 * An OpenAPI document with `count` operations answering a `Thing` that refers to a `User` four
 * times, which refers to a `Label` four times: small to store, large once inlined. 3,000 of them
 * take ≈ 0.4 s to render as declarations in one go (6 MB).
 */
function catalogSpec(count: number): Record<string, unknown> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const four = (target: string) => ({ a: ref(target), b: ref(target), c: ref(target), d: ref(target) });
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    paths[`/things${i}`] = {
      get: {
        operationId: `getThing${i}`,
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: ref('Thing') } } },
        },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Catalog', version: '1.0.0' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths,
    components: {
      schemas: {
        Label: { type: 'object', properties: { name: { type: 'string', description: 'Its name' } } },
        User: { type: 'object', properties: { id: { type: 'integer' }, ...four('Label') } },
        Thing: { type: 'object', properties: { id: { type: 'integer' }, ...four('User') } },
      },
    },
  };
}

/**
 * The floor for 200 programs arriving at once: each request's body is read, its program scanned
 * and stored on the main thread, so a probe may queue behind many of them (0.8–1.5 s measured on
 * a loaded 2-core machine). A reader that backtracked on the 30,000 quotes would take seconds
 * per program.
 */
const PROGRAMS_FLOOR_MS = 3_000;

/**
 * The floor while the declarations render: rendering them on the main thread instead of the
 * worker would stall it ≈ 0.4 s at once; the worker's answer costs it 100–200 ms on a loaded
 * machine.
 */
const RENDER_FLOOR_MS = 300;

async function install(api: ReturnType<typeof apiClient>, id: string, spec: Record<string, unknown>) {
  const installed = await api('POST', '/services', {
    id,
    adapter: 'openapi',
    definition: JSON.stringify(spec),
    enabled: true,
  });
  expect(installed.status).toBe(201);
}

describe('the main thread under hostile input', () => {
  const { api, url } = useServer();

  it('validates a backtracking-prone pattern and the url format without stalling /health', async () => {
    await install(api, 'patterns', patternSpec());
    const code = `
      const results = [];
      for (const query of [{ code: 'a'.repeat(33) + '!' }, { link: 'a'.repeat(40) + '!' }, { code: 'a'.repeat(100000) + '!' }]) {
        try {
          await cyrnel.services.patterns.tools.find.invoke({ query });
          results.push('passed');
        } catch (error) {
          results.push(error.status + ' ' + error.message);
        }
      }
      cyrnel.output({ results });
    `;
    const run = await expectHealthDuring('/health while hostile patterns validate', url(), () =>
      api('POST', '/processes', { code, wait: true }),
    );
    expect(run.body.exitState).toBe('success');
    expect(run.body.output.results).toEqual([
      expect.stringMatching(/^400 parameters does not match its schema: \/query\/code must match pattern/),
      expect.stringMatching(
        /^400 parameters does not match its schema: \/query\/link must match format "url"/,
      ),
      expect.stringMatching(/^400 parameters does not match its schema: \/query\/code must match pattern/),
    ]);
  });

  it('bounds discovery per process and keeps /health fast during a Promise.all of 5,000 calls', async () => {
    await install(api, 'things', manyToolsSpec(2000));
    const code = `
      const settled = await Promise.allSettled(
        Array.from({ length: 5000 }, (_, i) => cyrnel.discover.tools({ query: 'things kind ' + (i % 50), limit: 5 })),
      );
      const codes = {};
      for (const result of settled) {
        const key = result.status === 'fulfilled' ? 'ok' : String(result.reason.code);
        codes[key] = (codes[key] ?? 0) + 1;
      }
      cyrnel.output({ codes });
    `;
    const run = await expectHealthDuring('/health during 5,000 discovery calls', url(), () =>
      api('POST', '/processes', { code, wait: true, timeoutMs: 120_000 }),
    );
    expect(run.body.exitState).toBe('success');
    const codes = run.body.output.codes as Record<string, number>;
    expect(codes.ok).toBeGreaterThan(0);
    expect(codes.ok).toBeLessThanOrEqual(1000);
    // Everything beyond the per-process budget (or the sandbox's pending-call limit) is refused.
    expect(Object.keys(codes).filter((key) => key !== 'ok')).toEqual(['too_many_calls']);
  });

  it('reads the services 200 programs of nearly 100 KB name (what a run needs) without stalling /health', async () => {
    // Thousands of distinct names (at most 64 looked up each), and quotes that open a bracket
    // name and never close it: what a backtracking reader would choke on.
    const names = Array.from({ length: 2_500 }, (_, i) => `cyrnel.services.s${i}`).join(';');
    const bait = `cyrnel.services['${"'".repeat(30_000)}`;
    const code = `/* ${names} ${bait} */ cyrnel.output({ ok: true })`;
    expect(Buffer.byteLength(code)).toBeLessThan(100 * 1024);
    const runs = await expectHealthDuring(
      '/health while 200 programs of nearly 100 KB arrive at once',
      url(),
      () => Promise.all(Array.from({ length: 200 }, () => api('POST', '/processes', { code, wait: true }))),
      PROGRAMS_FLOOR_MS,
    );
    for (const run of runs) expect(run.body).toMatchObject({ exitState: 'success', output: { ok: true } });
  });

  it('plans 200 programs of nearly 100 KB calling thousands of tools without stalling /health', async () => {
    // Every call site names another service: each tool's policy is looked up for the plan.
    const calls = Array.from({ length: 2_000 }, (_, i) => `await cyrnel.services.s${i}.tools.t.invoke({});`);
    const code = calls.join('\n');
    expect(Buffer.byteLength(code)).toBeLessThan(100 * 1024);
    const plans = await expectHealthDuring(
      '/health while 200 plans of nearly 100 KB are made at once',
      url(),
      () => Promise.all(Array.from({ length: 200 }, () => api('POST', '/processes', { code, plan: true }))),
      PROGRAMS_FLOOR_MS,
    );
    for (const plan of plans) {
      expect(plan.status).toBe(201);
      expect(plan.body.tools).toHaveLength(2_000);
      expect(plan.body.tools[0]).toMatchObject({ serviceId: 's0', toolId: 't', known: false, lines: [1] });
    }
  });
});

describe('the main thread while type declarations render', () => {
  const { api, url } = useServer();

  it('renders the declarations of 3,000 tools off the main thread: /health keeps answering', async () => {
    await install(api, 'catalog', catalogSpec(3000));
    const types = await expectHealthDuring(
      '/health while the declarations of 3,000 tools render',
      url(),
      () => api('GET', '/environment/types'),
      RENDER_FLOOR_MS,
    );
    expect(types.status).toBe(200);
    expect(types.text).toContain('declare const cyrnel');
    expect(types.text).toContain('getThing2999: { invoke(parameters:');
    expect(types.text).toContain('type Label = { name?: string };');
  });
});
