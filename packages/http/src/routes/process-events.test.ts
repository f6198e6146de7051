import type { CyrnelHost } from '@cyrnel/core';
import type { ProcessEvent } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { createApp } from '../create-app';
import { createEventStreamBudget } from './event-stream-budget';

// A host whose every process replays `events` and then stays live (no `exit`).
const replayingHost = (events: readonly ProcessEvent[]): CyrnelHost =>
  ({
    processes: {
      async subscribe(_id: number, listener: (event: ProcessEvent) => void) {
        for (const event of events) listener(event);
        return () => {};
      },
    },
  }) as unknown as CyrnelHost;

const stdout = (size: number): ProcessEvent => ({ type: 'stdout', data: { text: 'x'.repeat(size) } });

describe('GET /processes/:id/events', () => {
  it('answers 429 too_many_streams with Retry-After beyond maxEventStreams, and frees the slot on close', async () => {
    const app = createApp(replayingHost([stdout(10)]), { maxEventStreams: 2 });
    const first = await app.request('/processes/1/events');
    const second = await app.request('/processes/1/events');
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await app.request('/processes/1/events');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(await third.json()).toEqual({
      error: expect.stringContaining('at most 2'),
      code: 'too_many_streams',
      reason: 'too_many_streams',
    });
    await first.body?.cancel();
    await expect
      .poll(async () => {
        const again = await app.request('/processes/1/events');
        await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
    await second.body?.cancel();
  });

  it('drops a stream whose events would exceed the budget all streams share', async () => {
    // Each replay is 3 events of ~110 characters; an unread stream keeps all but the one in flight.
    const app = createApp(replayingHost([stdout(100), stdout(100), stdout(100)]), {
      maxEventQueueBytes: 10_000,
      maxEventBufferBytes: 400,
    });
    const slow = await app.request('/processes/1/events');
    const dropped = await app.request('/processes/1/events');
    // The second stream ends at once: its replay did not fit beside the first one's.
    expect(await dropped.text()).toBe('');
    // The first one is still open and delivers its whole replay once read.
    const reader = slow.body?.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/event: stdout/g) ?? []).length < 3) {
      const chunk = await reader?.read();
      text += decoder.decode(chunk?.value);
    }
    await reader?.cancel();
  });
});

describe('createEventStreamBudget', () => {
  it('counts streams up to the cap and bytes up to the budget', () => {
    const budget = createEventStreamBudget({ maxStreams: 1, maxBytes: 10 });
    expect(budget.open()).toBe(true);
    expect(budget.open()).toBe(false);
    expect(budget.take(6)).toBe(true);
    expect(budget.take(5)).toBe(false);
    expect(budget.usage()).toEqual({ streams: 1, bytes: 6 });
    budget.give(6);
    budget.close();
    expect(budget.usage()).toEqual({ streams: 0, bytes: 0 });
    expect(budget.open()).toBe(true);
  });
});
