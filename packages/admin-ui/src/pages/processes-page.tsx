import type { CyrnelClient } from '@cyrnel/client';
import type { ProcessSummary } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { useAction } from '../components/use-action';

/** `#/processes`: the processes, filtered by state, 20 a page. */
export function ProcessesPage({ client }: { client: CyrnelClient }) {
  const [state, setState] = useState('');
  const [items, setItems] = useState<ProcessSummary[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const { error, run } = useAction();
  useEffect(() => {
    // A filter changed while a page was loading: the earlier answer, if it comes last, is dropped
    // rather than shown under the new filter.
    let cancelled = false;
    void run(async () => {
      const page = await client.processes.list({
        limit: 20,
        ...(state ? { state: state as ProcessSummary['state'] } : {}),
        ...(cursor ? { cursor } : {}),
      });
      if (cancelled) return;
      setItems(page.items);
      setNext(page.nextCursor);
    });
    return () => {
      cancelled = true;
    };
  }, [state, cursor]);
  return (
    <>
      <h1>Processes</h1>
      <label for="state-filter">State</label>
      <select
        id="state-filter"
        value={state}
        onChange={(e) => {
          setState((e.target as HTMLSelectElement).value);
          setCursor(undefined);
        }}
      >
        <option value="">any</option>
        <option value="queued">queued</option>
        <option value="running">running</option>
        <option value="waiting">waiting</option>
        <option value="idle">idle</option>
      </select>
      <ErrorLine error={error} />
      {items?.length === 0 ? (
        <p class="empty" data-testid="no-process">
          {state
            ? `No process matches the state “${state}”${cursor ? ' on this page' : ''}: choose “any” to see them all.`
            : 'No process yet: run code in the playground.'}
        </p>
      ) : null}
      {items && items.length > 0 ? (
        <table aria-label="Processes">
          <thead>
            <tr>
              <th>Process</th>
              <th>State</th>
              <th>Exit</th>
              <th>Host</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {(items ?? []).map((item) => (
              <tr key={item.id}>
                <td>
                  <a href={`#/processes/${item.id}`}>#{item.id}</a>
                </td>
                <td>{item.state}</td>
                <td>{item.exitState ?? ''}</td>
                <td>{item.hostId ?? ''}</td>
                <td>{item.createdAt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <div class="row">
        {cursor ? (
          <button type="button" class="secondary" onClick={() => setCursor(undefined)}>
            First page
          </button>
        ) : null}
        {next ? (
          <button type="button" class="secondary" onClick={() => setCursor(next)}>
            Next page
          </button>
        ) : null}
      </div>
    </>
  );
}
