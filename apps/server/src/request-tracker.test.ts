import { describe, expect, it } from 'vitest';
import { createRequestTracker } from './request-tracker';

describe('createRequestTracker', () => {
  it('counts requests until their handler returns and reports when none is left', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tracker = createRequestTracker(async () => {
      await held;
      return new Response('done');
    });
    expect(await tracker.drained(0)).toBe(true);
    const answer = tracker.fetch(new Request('http://x/a'));
    expect(tracker.pending()).toBe(1);
    expect(await tracker.drained(10)).toBe(false);
    const drained = tracker.drained(60_000);
    release();
    expect(await (await answer).text()).toBe('done');
    expect(await drained).toBe(true);
    expect(tracker.pending()).toBe(0);
  });

  it('counts a handler that throws as finished', async () => {
    const tracker = createRequestTracker(async () => {
      throw new Error('boom');
    });
    await expect(tracker.fetch(new Request('http://x/'))).rejects.toThrow('boom');
    expect(tracker.pending()).toBe(0);
  });

  it('answers 503 unavailable with Connection: close once draining, without calling the handler', async () => {
    let calls = 0;
    const tracker = createRequestTracker(() => {
      calls++;
      return new Response('ok');
    });
    tracker.startDraining();
    const response = await tracker.fetch(new Request('http://x/services'));
    expect(response.status).toBe(503);
    expect(response.headers.get('connection')).toBe('close');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.json()).toEqual({
      error: 'the server is shutting down',
      code: 'unavailable',
      reason: 'shutting_down',
    });
    expect(calls).toBe(0);
    expect(tracker.pending()).toBe(0);
  });
});
