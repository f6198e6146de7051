import { describe, expect, it } from 'vitest';
import { createHttpCancellations } from './http-cancellations';

const post = () =>
  new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json' } });

describe('createHttpCancellations', () => {
  it("cancels the caller's request of that id, never another caller's, and tells 3 from '3'", () => {
    const cancellations = createHttpCancellations();
    const mine = cancellations.track('key-a', 3, post());
    const theirs = cancellations.track('key-b', 3, post());
    expect(cancellations.cancel('key-a', '3')).toBe(false);
    expect(cancellations.cancel('key-c', 3)).toBe(false);
    expect(cancellations.cancel('key-a', 3)).toBe(true);
    expect(mine.request.signal.aborted).toBe(true);
    expect(theirs.request.signal.aborted).toBe(false);
  });

  it('leaves alone an id two requests of one caller share (which one was meant cannot be told)', () => {
    const cancellations = createHttpCancellations();
    const first = cancellations.track('key-a', 1, post());
    const second = cancellations.track('key-a', 1, post());
    expect(cancellations.cancel('key-a', 1)).toBe(false);
    second.done();
    expect(cancellations.cancel('key-a', 1)).toBe(true);
    expect(first.request.signal.aborted).toBe(true);
  });

  it('aborts with the client going away, and forgets a request once its answer is read', async () => {
    const cancellations = createHttpCancellations();
    const client = new AbortController();
    const gone = cancellations.track(
      'key-a',
      1,
      new Request('http://127.0.0.1/mcp', { method: 'POST', signal: client.signal }),
    );
    client.abort();
    expect(gone.request.signal.aborted).toBe(true);
    const answered = cancellations.track('key-a', 2, post());
    const response = answered.through(new Response('event: message\ndata: {}\n\n'));
    // Still streaming its answer: still cancellable.
    const streaming = cancellations.track('key-a', 4, post());
    streaming.through(new Response('event: message\n'));
    expect(cancellations.cancel('key-a', 4)).toBe(true);
    expect(await response.text()).toBe('event: message\ndata: {}\n\n');
    expect(cancellations.cancel('key-a', 2)).toBe(false);
    expect(answered.request.signal.aborted).toBe(false);
  });
});
