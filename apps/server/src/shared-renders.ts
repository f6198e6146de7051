/** Options of {@link sharedRenders}. */
export interface SharedRendersOptions {
  /**
   * How long (ms) after a render started its result still answers new callers. Default 0: every
   * caller gets a render that started after it asked.
   */
  readonly reuseMs?: number;
}

/**
 * `render` shared by the callers that ask while it runs: at most one render runs at a time and at
 * most one more waits for it, so a thousand scrapes at once cost two renders, not a thousand.
 * Each caller gets a render that started after it asked (those who ask during a render share the
 * next), or, with `reuseMs`, one that started at most that long before.
 *
 * @example
 * ```ts
 * const text = sharedRenders(() => registry.metrics());
 * const [a, b] = await Promise.all([text(), text()]); // one render
 * ```
 */
export function sharedRenders<T>(
  render: () => Promise<T>,
  options: SharedRendersOptions = {},
): () => Promise<T> {
  const reuseMs = options.reuseMs ?? 0;
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  let last: { readonly at: number; readonly result: Promise<T> } | undefined;
  const start = (): Promise<T> => {
    const at = performance.now();
    const run = Promise.resolve()
      .then(render)
      .finally(() => {
        if (running === run) running = undefined;
      });
    running = run;
    // A failed render is never reused.
    run.then(
      () => {
        last = { at, result: run };
      },
      () => undefined,
    );
    return run;
  };
  return () => {
    if (last && performance.now() - last.at < reuseMs) return last.result;
    if (running === undefined) return start();
    next ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        next = undefined;
        // A caller that came after the render ended may have started one already: share it.
        return running ?? start();
      });
    return next;
  };
}
