import { afterEach, describe, expect, it } from 'vitest';
import { expectWithinBaseline } from '../../../../vitest.timing';
import { resolveDistFile } from '../../src/host/dist-file';
import { createRenderer, type Renderer } from '../../src/host/renderer';
import { explosive, tool } from '../render-schemas';

const workerPath = resolveDistFile('render-worker.js');

/**
 * The floor of the longest event-loop gap while a costly catalog renders in the worker: the loop
 * turns every few milliseconds (50–60 ms gaps on a loaded 2-core machine); rendering it in-thread
 * would block it for seconds.
 */
const STALL_FLOOR_MS = 100;

/** The longest gap between turns of the event loop while `work` runs. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let stallMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  try {
    const result = await work();
    return { result, stallMs: Math.max(stallMs, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

let renderer: Renderer | undefined;
afterEach(() => {
  renderer?.close();
  renderer = undefined;
});

describe('createRenderer', () => {
  it('keeps the event loop turning while a costly catalog renders', async () => {
    renderer = createRenderer({ workerPath, timeoutMs: 60_000 });
    const first = tool('svc0', 'op0', {
      type: 'object',
      properties: { path: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } },
    });
    await renderer.signature(first); // the worker's start is not measured
    const costly = Array.from({ length: 6 }, (_, i) => tool('deep', `t${i}`, explosive(12, 6)));
    const baseline = await longestStall(() => new Promise((resolve) => setTimeout(resolve, 500)));
    const { result, stallMs } = await longestStall(() => renderer!.types(costly));
    expect(result).toContain('t5: { invoke(parameters:');
    expectWithinBaseline('the event loop while a costly catalog renders in the worker', {
      attackMs: stallMs,
      baselineMs: baseline.stallMs,
      floorMs: STALL_FLOOR_MS,
    });
  });
});
