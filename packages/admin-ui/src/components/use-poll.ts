import { useEffect, useState } from 'preact/hooks';

/** How often live views ask the server again: approvals change when a person or a program acts. */
export const POLL_MS = 2000;

/**
 * A value loaded now and again every {@link POLL_MS} while the view shows (not while the tab is
 * hidden), until `done(value)` says it can no longer change. Polling rather than a stream: the
 * API has no stream of approvals, and a pending list is small.
 *
 * @example
 * ```ts
 * const { value, error } = usePoll(() => client.approvals.get(id), [id], (d) => d.state !== 'pending');
 * ```
 */
export function usePoll<T>(load: () => Promise<T>, deps: readonly unknown[], done?: (value: T) => boolean) {
  const [value, setValue] = useState<T | undefined>();
  const [error, setError] = useState<unknown>(undefined);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const step = async () => {
      let again = true;
      if (!document.hidden) {
        try {
          const loaded = await load();
          if (stopped) return;
          setValue(() => loaded);
          setError(undefined);
          again = done?.(loaded) !== true;
        } catch (caught) {
          if (stopped) return;
          setError(caught);
        }
      }
      if (!stopped && again) timer = setTimeout(step, POLL_MS);
    };
    void step();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [...deps, round]);
  /** Load again now (after an action changed the value). */
  const refresh = () => setRound((count) => count + 1);
  return { value, error, refresh, setValue };
}
