import { useCallback, useState } from 'preact/hooks';

/** Run an async action, keeping its error for display and a busy flag. */
export function useAction() {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run, setError };
}
