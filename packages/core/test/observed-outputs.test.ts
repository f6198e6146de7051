import { afterEach, describe, expect, it, vi } from 'vitest';
import { gatewayOf } from './support/gateway';
import { createHarness, type Harness } from './support/harness';
import { createProbe, createTestAdapter, definition } from './support/test-adapter';
import { createEnvironmentProbe, createTestEnvironment } from './support/test-environment';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SECRET = 'hunter2secretvalue';

async function start() {
  harness = await createHarness({
    builtins: [
      createTestAdapter('test', createProbe()),
      createTestEnvironment('env', createEnvironmentProbe()),
    ],
  });
  const { host } = harness;
  await host.services.install({
    id: 'svc',
    adapter: 'test',
    definition: definition({
      tools: [
        { id: 'free', description: 'Answers what it is given', outputSchema: {} },
        { id: 'typed', description: 'Declares its result' },
      ],
      secretsSchema: { type: 'object', properties: { token: { type: 'string' } } },
    }),
    secrets: { token: SECRET },
    enabled: true,
  });
  return { host, tools: gatewayOf(host).tools };
}

describe('observed output shapes through the host', () => {
  it('learns what the gate answered for a tool without an output schema, and shows it as observed', async () => {
    const { host, tools } = await start();
    expect((await host.services.get('svc')).observeOutputs).toBe(true);
    // The test adapter answers `{ echo: parameters, route }`; a key holding a secret makes a map.
    await tools.invoke({ serviceId: 'svc', toolId: 'free', parameters: { note: 'zebra-7781', [SECRET]: 1 } });
    await tools.invoke({ serviceId: 'svc', toolId: 'typed', parameters: { note: 'x' } });
    const shape = await vi.waitFor(async () => {
      const detail = await host.tools.get('svc', 'free');
      expect(detail.observedOutputSchema).not.toBeNull();
      return detail.observedOutputSchema;
    });
    expect(shape).toEqual({
      type: 'object',
      properties: {
        echo: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
        route: { type: 'string' },
      },
      required: ['echo', 'route'],
    });
    expect(JSON.stringify(shape)).not.toContain(SECRET);
    expect((await host.tools.get('svc', 'typed')).observedOutputSchema).toBeNull();
    const [free] = await host.tools.docsInputs({ tools: ['svc.free'] });
    expect(free?.observedOutputSchema).toEqual(shape);
    expect(await tools.describeTool('svc', 'free')).toMatchObject({ observedOutputSchema: shape });
  });

  it('answers nothing for a stored shape it would not write (another version, a hand), and follows the switch', async () => {
    const { host } = await start();
    const catalog = harness?.storage.catalog;
    await catalog?.updateObservedOutput('svc', 'free', null, { enum: ['leaked-value'] });
    expect((await host.tools.get('svc', 'free')).observedOutputSchema).toBeNull();
    expect(await host.tools.docsInputs({ tools: ['svc.free'] })).toEqual([
      expect.not.objectContaining({ observedOutputSchema: expect.anything() }),
    ]);
    const off = await host.services.setObserveOutputs('svc', false);
    expect(off.observeOutputs).toBe(false);
    expect((await catalog?.getTool('svc', 'free'))?.observedOutput).toBeNull();
    await expect(host.services.setObserveOutputs('svc', 'no' as unknown as boolean)).rejects.toMatchObject({
      reason: 'invalid_request',
    });
    await expect(host.services.setObserveOutputs('nope', true)).rejects.toMatchObject({
      reason: 'service_not_found',
    });
  });
});
