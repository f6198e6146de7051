import type { ProcessEvent } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { HANGS, trackTestManagers } from '../testing/test-manager';

const setup = trackTestManagers();

describe('subscribe', () => {
  it('streams events live and replays them after the end', async () => {
    const { api } = await setup();
    const { id } = await api.create({
      code: 'cyrnel.log("a"); await cyrnel.sleep(5); cyrnel.output({ k: 1 }); cyrnel.error("b")',
    });
    const live: ProcessEvent[] = [];
    const done = new Promise<void>((resolve) => {
      api.subscribe(id, (event) => {
        live.push(event);
        if (event.type === 'exit') resolve();
      });
    });
    await done;
    expect(live.map((e) => e.type)).toEqual([
      'state',
      'state',
      'stdout',
      'output',
      'stderr',
      'state',
      'exit',
    ]);
    await api.wait(id);
    const replay: ProcessEvent[] = [];
    await api.subscribe(id, (event) => replay.push(event));
    expect(replay).toEqual([
      { type: 'state', data: { state: 'idle', exitState: 'success' } },
      { type: 'stdout', data: { text: 'a\n' } },
      { type: 'stderr', data: { text: 'b\n' } },
      { type: 'output', data: { patch: { k: 1 } } },
      { type: 'exit', data: { exitState: 'success', error: null, errorReason: null } },
    ]);
    await expect(api.subscribe(999, () => {})).rejects.toMatchObject({ code: 'not_found' });
  });

  it('replays consecutive chunks of a stream as one event', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: `cyrnel.log('a'); cyrnel.log('b'); ${HANGS}`, timeoutMs: null });
    const seen = new Promise<void>((resolve) => {
      const texts: string[] = [];
      api.subscribe(id, (event) => {
        if (event.type === 'stdout') texts.push(event.data.text);
        if (texts.join('') === 'a\nb\n') resolve();
      });
    });
    await seen;
    const replay: ProcessEvent[] = [];
    await api.subscribe(id, (event) => replay.push(event));
    expect(replay.filter((event) => event.type === 'stdout')).toEqual([
      { type: 'stdout', data: { text: 'a\nb\n' } },
    ]);
  });

  it('replays consecutive output patches as their merge, live subscribers having seen each', async () => {
    const { api } = await setup();
    const code = `for (let i = 0; i < 1000; i++) await cyrnel.output({ i }); cyrnel.output({ done: true }); ${HANGS}`;
    const { id } = await api.create({ code, timeoutMs: null });
    const live: ProcessEvent[] = [];
    await new Promise<void>((resolve) => {
      api.subscribe(id, (event) => {
        live.push(event);
        if (event.type === 'output' && event.data.patch.done === true) resolve();
      });
    });
    expect(live.filter((event) => event.type === 'output')).toHaveLength(1001);
    const replay: ProcessEvent[] = [];
    await api.subscribe(id, (event) => replay.push(event));
    expect(replay.filter((event) => event.type === 'output')).toEqual([
      { type: 'output', data: { patch: { i: 999, done: true } } },
    ]);
    await api.kill(id);
  });

  it('lets subscribers of a never-run process follow its first run', async () => {
    const { api } = await setup();
    const { id } = await api.create({ code: 'cyrnel.log("ran")', autorun: false });
    const events: ProcessEvent[] = [];
    const exited = new Promise<void>((resolve) => {
      api.subscribe(id, (event) => {
        events.push(event);
        if (event.type === 'exit') resolve();
      });
    });
    await api.run(id);
    await exited;
    expect(events[0]).toEqual({ type: 'state', data: { state: 'idle', exitState: null } });
    expect(events.at(-1)).toEqual({
      type: 'exit',
      data: { exitState: 'success', error: null, errorReason: null },
    });
    expect(events).toContainEqual({ type: 'stdout', data: { text: 'ran\n' } });
  });
});
