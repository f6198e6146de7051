import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';

const MODULE = new URL('./validation-worker.ts', import.meta.url).href;
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.terminate()));
});

/**
 * A thread that imports the validation worker's module, as the egress gateway's workers do (for
 * `compile`), then answers every message with `{ echo }` itself; resolves with its first reply.
 */
async function firstReply(workerData: unknown, message: unknown): Promise<unknown> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     import(${JSON.stringify(MODULE)}).then(() => {
       parentPort.on('message', (echo) => parentPort.postMessage({ echo }));
       parentPort.postMessage('ready');
     });`,
    { eval: true, workerData },
  );
  workers.push(worker);
  const replies: unknown[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (reply) => (reply === 'ready' ? resolve() : replies.push(reply)));
  });
  await ready;
  worker.postMessage(message);
  await expect.poll(() => replies.length, { timeout: 10_000 }).toBeGreaterThan(0);
  return replies[0];
}

const check = { id: 7, key: 'k', schema: { type: 'string' }, value: 'x', redact: false };

describe('the validation worker module', () => {
  it('answers checks only in a thread the schema checker started', async () => {
    // Another thread that imports it (an egress gateway worker) hears its own messages alone.
    expect(await firstReply({ socketPath: '/tmp/w0.sock' }, check)).toEqual({ echo: check });
    expect(await firstReply(undefined, check)).toEqual({ echo: check });
    // The schema checker's own thread answers the check first (its listener came first).
    expect(await firstReply({ cyrnelValidation: true }, check)).toEqual({ id: 7, kind: 'valid' });
  });
});
