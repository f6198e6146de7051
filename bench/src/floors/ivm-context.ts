import ivm from 'isolated-vm';
import { transform } from 'sucrase';

/** A pooled isolate that runs a program in a fresh context each time: floor (b). */
export interface IvmFloor {
  /** Transpiles `code`, runs it in a new context with a tiny `cyrnel` shim, returns its output. */
  run(code: string): Promise<unknown>;
  close(): void;
}

// The shim mirrors what cyrnel's sandbox offers the trivial program, and nothing more.
const SHIM = `const cyrnel = Object.freeze({ output: (o) => __output(JSON.stringify(o)) });`;

/** Creates the one isolate reused by every run (128 MB, as cyrnel's default). */
export function createIvmFloor(): IvmFloor {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  return {
    async run(code) {
      const js = transform(code, { transforms: ['typescript'] }).code;
      const context = await isolate.createContext();
      try {
        let output: unknown;
        await context.global.set(
          '__output',
          new ivm.Callback((json: string) => {
            output = JSON.parse(json);
          }),
        );
        const script = await isolate.compileScript(`${SHIM}\n(async () => {\n${js}\n})()`);
        await script.run(context, { promise: true, timeout: 30_000 });
        script.release();
        return output;
      } finally {
        context.release();
      }
    },
    close() {
      if (!isolate.isDisposed) isolate.dispose();
    },
  };
}
