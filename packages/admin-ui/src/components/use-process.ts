import type { CyrnelClient } from '@cyrnel/client';
import type { ProcessRecord, ToolCallRecord } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';

/**
 * A process followed live: its record and calls at once and at each change of state, stdout and
 * stderr as they come, then its record, output and calls once it ended.
 */
export function useProcess(client: CyrnelClient, id: number | undefined) {
  const [record, setRecord] = useState<ProcessRecord | undefined>();
  const [stdout, setStdout] = useState('');
  const [stderr, setStderr] = useState('');
  const [output, setOutput] = useState<unknown>(undefined);
  const [calls, setCalls] = useState<ToolCallRecord[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    if (id === undefined) return;
    let stopped = false;
    const controller = new AbortController();
    setStdout('');
    setStderr('');
    setOutput(undefined);
    setCalls([]);
    void (async () => {
      // The calls so far: a run that waits at an approval, or still runs, shows the calls it made.
      const loadCalls = async () => {
        const made = await client.processes.calls(id);
        if (!stopped) setCalls(made.items);
      };
      try {
        setRecord(await client.processes.get(id));
        await loadCalls();
        let out = '';
        let err = '';
        for await (const event of client.processes.events(id, { signal: controller.signal })) {
          if (stopped) return;
          if (event.type === 'stdout') {
            out += event.data.text;
            setStdout(out);
          }
          if (event.type === 'stderr') {
            err += event.data.text;
            setStderr(err);
          }
          if (event.type === 'state') {
            setRecord(await client.processes.get(id));
            await loadCalls();
          }
          if (event.type === 'approval') await loadCalls();
          if (event.type === 'exit') break;
        }
        const [finished, result, made] = await Promise.all([
          client.processes.get(id),
          client.processes.output(id),
          client.processes.calls(id),
        ]);
        if (stopped) return;
        setRecord(finished);
        setOutput(result);
        setCalls(made.items);
        setStdout(await client.processes.stdout(id));
        setStderr(await client.processes.stderr(id));
      } catch (caught) {
        if (!stopped) setError(caught);
      }
    })();
    return () => {
      stopped = true;
      controller.abort();
    };
  }, [id]);
  return { record, stdout, stderr, output, calls, error };
}
