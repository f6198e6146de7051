import { afterEach, describe, expect, it } from 'vitest';
import { createKeyRing, createOutboundPolicy } from '../src/index';
import { createHarness, type Harness } from './support/harness';

// Validation of request meaning happens once, in the host: any front end calling `host.*`
// (HTTP today, others tomorrow) gets the same 400, before anything is looked up.
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const refused = (message: string | RegExp) =>
  expect.objectContaining({ code: 'invalid_request', status: 400, message: expect.stringMatching(message) });

describe('request validation in the host', () => {
  it('refuses malformed JSON Patch documents for config and secrets of either kind of owner', async () => {
    harness = await createHarness();
    const { host } = harness;
    // No such service or module: the patch's shape is checked first, so the answer is a 400, not a 404.
    await expect(host.services.patchConfig('ghost', { op: 'add' } as never)).rejects.toThrowError(
      refused(/^the request body must be a JSON Patch array \(RFC 6902\)$/),
    );
    await expect(
      host.services.patchSecrets('ghost', [{ op: 'add', path: '/a' }] as never),
    ).rejects.toThrowError(refused(/^invalid JSON Patch: \/0\/value is required$/));
    await expect(
      host.modules.patchConfig('ghost', [{ op: 'merge', path: '/a' }] as never),
    ).rejects.toThrowError(refused(/\/0\/op must be one of add, remove/));
    await expect(host.modules.patchSecrets('ghost', [{ op: 'remove', path: 'a' }])).rejects.toThrowError(
      refused(/\/0\/path must be a JSON pointer string/),
    );
  });

  it('refuses process requests of the wrong shape, naming the field', async () => {
    harness = await createHarness();
    const { processes } = harness.host;
    await expect(processes.create({ code: 1 } as never)).rejects.toThrowError(
      refused(/^invalid request body: code must be a string$/),
    );
    await expect(processes.create({ code: 'x', timeoutMs: 0 })).rejects.toThrowError(
      refused(/timeoutMs must be a positive integer/),
    );
    await expect(processes.create({ code: 'x', wait: true } as never)).rejects.toThrowError(
      refused(/wait unknown field/),
    );
    await expect(processes.create([] as never)).rejects.toThrowError(refused(/must be a JSON object/));
    // Before the (unknown) process is looked up.
    await expect(processes.run(999, { force: 'yes' } as never)).rejects.toThrowError(
      refused(/force must be a boolean/),
    );
    await expect(processes.list({ state: 'sleeping' } as never)).rejects.toThrowError(
      refused(/^invalid query: state must be one of idle, queued, running, waiting, terminating$/),
    );
    expect((await processes.list()).items).toEqual([]);
  });

  it('refuses install and update input with unknown fields or wrong types, before any adapter is asked', async () => {
    harness = await createHarness();
    const { services } = harness.host;
    // Exactly one of `url` and `definition` (the host downloads a URL itself); nothing else.
    await expect(
      services.install({ id: 'a', adapter: 'openapi', url: 'https://x', definition: '{}' }),
    ).rejects.toThrowError(refused(/^give either url or definition, not both$/));
    await expect(services.install({ id: 'a', adapter: 'openapi' })).rejects.toThrowError(
      refused(/^either url or definition is required$/),
    );
    await expect(
      services.install({ id: 'a', adapter: 'openapi', definition: '{}', source: 'x' } as never),
    ).rejects.toThrowError(refused(/^invalid request body: source unknown field$/));
    await expect(
      services.install({ id: 'a', adapter: 'openapi', definition: '{}', config: [] } as never),
    ).rejects.toThrowError(refused(/config must be a JSON object/));
    await expect(services.update('a', { definition: 1 } as never)).rejects.toThrowError(
      refused(/definition must be a string/),
    );
    expect((await services.list()).items).toEqual([]);
  });

  it('downloads a definition URL under the outbound policy its caller gives, before any adapter is asked', async () => {
    harness = await createHarness();
    const outbound = createOutboundPolicy({});
    await expect(
      harness.host.services.install(
        { id: 'a', adapter: 'openapi', url: 'http://169.254.169.254/latest' },
        { outbound },
      ),
    ).rejects.toMatchObject({ code: 'forbidden', reason: 'outbound_refused' });
    expect((await harness.host.services.list()).items).toEqual([]);
  });

  it('refuses list queries naming values outside their sets', async () => {
    harness = await createHarness();
    await expect(harness.host.modules.list({ type: 'plugin' } as never)).rejects.toThrowError(
      refused(/^invalid query: type must be one of adapter, environment$/),
    );
    await expect(harness.host.processes.list({ exitState: 'ok' } as never)).rejects.toThrowError(
      refused(/exitState must be one of/),
    );
  });

  it('refuses key requests with unknown or missing fields', async () => {
    harness = await createHarness();
    const keys = createKeyRing({ storage: harness.storage.keys });
    await expect(keys.create({ name: 'ci', role: 'agent', realm: 'all' } as never)).rejects.toThrowError(
      refused(/realm unknown field/),
    );
    await expect(keys.create({ name: 'ci', role: 'agent', scope: 'all' } as never)).rejects.toThrowError(
      refused(/scope must be a JSON object/),
    );
    await expect(keys.create({ name: 'ci' } as never)).rejects.toThrowError(refused(/role is required/));
    expect((await keys.list()).items).toEqual([]);
  });
});
