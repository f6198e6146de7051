import { POSTGRES_TESTS } from '@cyrnel/store/testing';
import { describe, expect, it, vi } from 'vitest';
import type { apiClient, Json } from './helpers';
import { everythingDefinition, expectNoValues } from './observed-helpers';
import { useSharedHosts } from './shared-hosts';

const KEY = 'observed-hosts-key';
const TOOL = '/tools/everything/get_annotated_message';
const TYPES = '/environment/types?tools=everything.get_annotated_message';

/** One call of `get_annotated_message`: a text alone answers a string, with an image an array. */
const annotated = (messageType: string, includeImage: boolean) => `
  const r = await cyrnel.services.everything.tools.get_annotated_message.invoke(
    { messageType: '${messageType}', includeImage: ${includeImage} });
  cyrnel.output({ kind: Array.isArray(r) ? 'array' : typeof r });
`;

/** What both hosts' answers teach together: a string, or an array of strings and image contents. */
const MERGED_VARIANTS = [
  { type: 'string' },
  {
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
            annotations: {
              type: 'object',
              properties: {
                priority: { type: 'number' },
                audience: { type: 'array', items: { type: 'string' } },
              },
              // In the order the server writes them.
              required: ['audience', 'priority'],
            },
          },
          required: ['type', 'data', 'mimeType', 'annotations'],
        },
      ],
    },
  },
];

describe.skipIf(!POSTGRES_TESTS.enabled)('observed output shapes on two hosts sharing PostgreSQL', () => {
  const hosts = useSharedHosts('cyrnel_observed', KEY);
  const start = async (hostId: string) => (await hosts.start(hostId)).api;
  /** Run `code` on a host until it succeeds (the other host may still be hydrating the service). */
  const runOn = (api: ReturnType<typeof apiClient>, code: string) =>
    vi.waitFor(
      async () => {
        const run = await api('POST', '/processes', { code, wait: true, timeoutMs: 30_000 });
        expect(run.body).toMatchObject({ exitState: 'success' });
        return run.body as { output: Json };
      },
      { timeout: 20_000, interval: 200 },
    );

  it('merges what each host learned into the one shape both declare, and one switch turns it off for both', async () => {
    const a = await start('host-a');
    const b = await start('host-b');
    await a('PATCH', '/modules/mcp/config', [
      { op: 'add', path: '/allowedCommands', value: [process.execPath] },
    ]);
    const installed = await a('POST', '/services', {
      id: 'everything',
      adapter: 'mcp',
      definition: everythingDefinition(),
      enabled: true,
    });
    expect(installed.status).toBe(201);
    // Both hosts learn at once, each from answers of another kind, and write into one row.
    const [onA, onB] = await Promise.all([
      runOn(a, annotated('success', false)),
      runOn(b, annotated('error', true)),
    ]);
    expect([onA.output.kind, onB.output.kind]).toEqual(['string', 'array']);
    for (const host of [a, b])
      await vi.waitFor(
        async () => {
          const shape = (await host('GET', TOOL)).body.observedOutputSchema;
          expect(shape?.anyOf).toHaveLength(2);
          expect(shape.anyOf).toEqual(expect.arrayContaining(MERGED_VARIANTS));
        },
        { timeout: 20_000, interval: 200 },
      );
    for (const host of [a, b]) {
      const types = (await host('GET', TYPES)).text;
      expect(types).toContain('Its result type is observed from past results');
      expect(types).toContain('annotations: { audience: string[]; priority: number };');
      // The union in the order the hosts wrote its variants.
      expect(types).toMatch(/\}\)\[\] \| string> \};|Promise<string \| \(string \| \{/);
      expectNoValues(types);
      expectNoValues(JSON.stringify((await host('GET', TOOL)).body));
    }
    // Turned off on one host: the other's declarations and detail forget it too, and it learns nothing.
    const off = await b('POST', '/services/everything/observe-outputs', { enabled: false });
    expect(off.body).toMatchObject({ observeOutputs: false });
    await runOn(a, annotated('debug', true));
    await vi.waitFor(
      async () => {
        expect((await a('GET', TOOL)).body.observedOutputSchema).toBeNull();
        expect((await a('GET', TYPES)).text).not.toContain('observed from past results');
      },
      { timeout: 20_000, interval: 200 },
    );
    expect((await a('GET', '/services/everything')).body).toMatchObject({ observeOutputs: false });
  });
});
