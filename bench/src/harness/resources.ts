/** Teardown callbacks for everything a run started, closed in reverse order. */
export interface Resources {
  /** Registers a teardown; returns a function that runs it early (and only once). */
  defer(close: () => Promise<void> | void): () => Promise<void>;
  /** Registers a last-resort synchronous kill, run when Node exits no matter how. */
  onExit(kill: () => void): void;
  closeAll(): Promise<void>;
}

/** A fresh set of resources; `closeAll` never throws. */
export function createResources(): Resources {
  const stack: Array<() => Promise<void>> = [];
  const killers: Array<() => void> = [];
  process.on('exit', () => {
    for (const kill of killers) {
      try {
        kill();
      } catch {
        // Exiting anyway: nothing useful to do with a failed kill here.
      }
    }
  });
  return {
    defer(close) {
      let done: Promise<void> | undefined;
      const run = () => {
        done ??= Promise.resolve()
          .then(close)
          .catch((error: unknown) => {
            process.stderr.write(
              `bench: teardown failed: ${error instanceof Error ? error.message : error}\n`,
            );
          });
        return done;
      };
      stack.push(run);
      return run;
    },
    onExit(kill) {
      killers.push(kill);
    },
    async closeAll() {
      while (stack.length) await stack.pop()?.();
    },
  };
}
