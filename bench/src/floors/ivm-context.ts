import ivm from 'isolated-vm';
import { transform } from 'sucrase';

/** Options of the floor (b) pool. */
export interface IvmFloorOptions {
  /** Isolates in the pool; each runs one program at a time, the rest wait FIFO (as cyrnel's pool). */
  readonly isolates?: number;
}

/** Pooled isolates that run a program in a fresh context each time: floor (b). */
export interface IvmFloor {
  /** Transpiles `code`, runs it in a new context with a tiny `cyrnel` shim, returns its output. */
  run(code: string): Promise<unknown>;
  close(): void;
}

// The shim mirrors what cyrnel's sandbox offers the trivial program, and nothing more.
const SHIM = `const cyrnel = Object.freeze({ output: (o) => __output(JSON.stringify(o)) });`;
const MEMORY_LIMIT_MB = 128;

// Set-up uses isolated-vm's synchronous calls (no hop to the isolate's thread per step, which
// cyrnel's runner does the same way); only the program itself runs asynchronously.
async function runIn(isolate: ivm.Isolate, code: string): Promise<unknown> {
  const js = transform(code, { transforms: ['typescript'] }).code;
  const context = isolate.createContextSync();
  try {
    let output: unknown;
    context.global.setSync(
      '__output',
      new ivm.Callback((json: string) => {
        output = JSON.parse(json);
      }),
    );
    const script = isolate.compileScriptSync(`${SHIM}\n(async () => {\n${js}\n})()`);
    await script.run(context, { promise: true, timeout: 30_000 });
    script.release();
    return output;
  } finally {
    context.release();
  }
}

/** Creates the pool (one 128 MB isolate by default, as cyrnel's default limit). */
export function createIvmFloor(options: IvmFloorOptions = {}): IvmFloor {
  const size = Math.max(1, options.isolates ?? 1);
  const idle: ivm.Isolate[] = Array.from(
    { length: size },
    () => new ivm.Isolate({ memoryLimit: MEMORY_LIMIT_MB }),
  );
  const all = new Set(idle);
  const waiting: Array<(isolate: ivm.Isolate) => void> = [];
  const release = (isolate: ivm.Isolate) => {
    // An isolate that hit its memory limit is disposed: replace it, as cyrnel recreates a slot.
    let next = isolate;
    if (isolate.isDisposed) {
      all.delete(isolate);
      next = new ivm.Isolate({ memoryLimit: MEMORY_LIMIT_MB });
      all.add(next);
    }
    const waiter = waiting.shift();
    if (waiter) waiter(next);
    else idle.push(next);
  };
  return {
    async run(code) {
      const isolate = idle.pop() ?? (await new Promise<ivm.Isolate>((resolve) => waiting.push(resolve)));
      try {
        return await runIn(isolate, code);
      } finally {
        release(isolate);
      }
    },
    close() {
      for (const isolate of all) if (!isolate.isDisposed) isolate.dispose();
    },
  };
}
