import { Worker } from 'node:worker_threads';
import {
  ANSWER_WORKER_DATA,
  type Answer,
  type AnswerFormat,
  type AnswerLimits,
  type AnswerReply,
  type AnswerRequest,
} from './answer-worker';

/** Options of {@link createAnswerParser}. */
export interface AnswerParserOptions {
  readonly limits: AnswerLimits;
  /** Workers at most (each parses one message at a time). Default 2. */
  readonly workers?: number;
}

/** Large MCP messages read in worker threads. */
export interface AnswerParser {
  /**
   * Read a line or a body from the pieces it arrived in. Pieces that own their memory are
   * transferred (the caller must not use them again); the others are copied.
   */
  read(pieces: readonly Uint8Array[], format: AnswerFormat): Promise<readonly Answer[]>;
  /** Stop the workers; messages still being read fail. */
  close(): Promise<void>;
}

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './answer-worker.ts' : './answer-worker.js',
  import.meta.url,
);

interface Lane {
  readonly worker: Worker;
  readonly pending: Map<number, { resolve(answers: readonly Answer[]): void; reject(error: Error): void }>;
}

/**
 * The adapter's answer workers: started on the first large message, shared by every connection
 * of the adapter, replaced when one dies. A message goes to the lane with the fewest pending.
 *
 * @example
 * ```ts
 * const parser = createAnswerParser({ limits: { maxDepth: 64, maxElements: 1_000_000 } });
 * const [answer] = await parser.read([line], 'line'); // { kind: 'tool-result', id: 3, json: '[…]' }
 * ```
 */
export function createAnswerParser(options: AnswerParserOptions): AnswerParser {
  const size = Math.max(1, options.workers ?? 2);
  const lanes: Lane[] = [];
  let nextId = 1;
  let closed = false;

  const start = (): Lane => {
    const worker = new Worker(WORKER_URL, { workerData: ANSWER_WORKER_DATA });
    const lane: Lane = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (reply: AnswerReply) => {
      const waiter = lane.pending.get(reply.id);
      lane.pending.delete(reply.id);
      waiter?.resolve(reply.answers);
    });
    const fail = (error: Error) => {
      const index = lanes.indexOf(lane);
      if (index >= 0) lanes.splice(index, 1);
      for (const waiter of lane.pending.values()) waiter.reject(error);
      lane.pending.clear();
    };
    worker.on('error', (error) => fail(new Error(`the MCP answer worker failed: ${error.message}`)));
    worker.on('exit', (code) => fail(new Error(`the MCP answer worker exited (code ${code})`)));
    lanes.push(lane);
    return lane;
  };

  const lane = (): Lane => {
    const idle = lanes.reduce<Lane | undefined>(
      (best, candidate) => (best && best.pending.size <= candidate.pending.size ? best : candidate),
      undefined,
    );
    if (idle && (idle.pending.size === 0 || lanes.length >= size)) return idle;
    return start();
  };

  return {
    read(pieces, format) {
      if (closed) return Promise.reject(new Error('the MCP adapter is torn down'));
      const chosen = lane();
      const id = nextId++;
      // Moved, not copied: a copy of 16 MiB on this thread is what the worker is here to avoid.
      const transfer = new Set<ArrayBuffer>();
      const moved = pieces.map((piece) => {
        const buffer = piece.buffer as ArrayBuffer;
        const whole = piece.byteOffset === 0 && piece.byteLength === buffer.byteLength;
        if (!whole || transfer.has(buffer)) return piece.slice();
        transfer.add(buffer);
        return piece;
      });
      return new Promise<readonly Answer[]>((resolve, reject) => {
        chosen.pending.set(id, { resolve, reject });
        const request: AnswerRequest = { id, pieces: moved, format, limits: options.limits };
        chosen.worker.postMessage(request, [...transfer]);
      });
    },
    async close() {
      closed = true;
      await Promise.all(lanes.splice(0).map((current) => current.worker.terminate()));
    },
  };
}
