import { describe, expect, it } from 'vitest';
import { trackTestManagers } from '../testing/test-manager';

const track = trackTestManagers();

async function setup() {
  return (await track()).api;
}

/** `promise` rejects with a validation error whose issue names `field`. */
async function refuses(promise: Promise<unknown>, field: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({
    code: 'invalid_request',
    status: 400,
    message: expect.stringContaining(field),
    details: [{ path: field }],
  });
}

describe('process API input', () => {
  it('refuses process ids that are not positive integers, on every call', async () => {
    const api = await setup();
    const calls: ((id: never) => Promise<unknown>)[] = [
      (id) => api.get(id),
      (id) => api.wait(id),
      (id) => api.code(id),
      (id) => api.stdout(id),
      (id) => api.stderr(id),
      (id) => api.output(id),
      (id) => api.calls(id),
      (id) => api.subscribe(id, () => {}),
      (id) => api.run(id),
      (id) => api.kill(id),
      (id) => api.delete(id),
    ];
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53, '1', null, undefined]) {
      for (const call of calls) await refuses(call(bad as never), 'id');
    }
  });

  it('validates the options of wait and names the field', async () => {
    const api = await setup();
    const { id } = await api.create({ code: 'x', autorun: false });
    await refuses(api.wait(id, null as never), 'options');
    await refuses(api.wait(id, 5 as never), 'options');
    await refuses(api.wait(id, { timeoutMs: 0 }), 'timeoutMs');
    await refuses(api.wait(id, { timeoutMs: 1.5 }), 'timeoutMs');
    await refuses(api.wait(id, { timeoutMs: 2 ** 31 }), 'timeoutMs');
    await refuses(api.wait(id, { marginMs: -1 }), 'marginMs');
    await refuses(api.wait(id, { marginMs: '5' as never }), 'marginMs');
    await refuses(api.wait(id, { signal: {} as never }), 'signal');
    expect(await api.wait(id, { timeoutMs: 2 ** 31 - 1, marginMs: 0 })).toMatchObject({ id, state: 'idle' });
  });

  it('validates the options of run and names the field', async () => {
    const api = await setup();
    const { id } = await api.create({ code: 'cyrnel.output({ ok: true })', autorun: false });
    // The same answer as every request body of the wrong type (`validateBody`).
    for (const body of [null, []]) {
      await expect(api.run(id, body as never)).rejects.toMatchObject({
        code: 'invalid_request',
        message: 'the request body must be a JSON object',
        details: [{ path: '', message: 'must be an object' }],
      });
    }
    await refuses(api.run(id, { force: 'yes' as never }), 'force');
    expect(await api.run(id, {})).toMatchObject({ state: 'queued' });
    expect(await api.wait(id)).toMatchObject({ exitState: 'success', output: { ok: true } });
    expect(await api.run(id, { force: true })).toMatchObject({ state: 'queued' });
  });
});
