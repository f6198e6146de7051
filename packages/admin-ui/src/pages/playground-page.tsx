import type { CyrnelClient } from '@cyrnel/client';
import { useEffect, useState } from 'preact/hooks';
import { CodeEditor } from '../components/code-editor';
import { ErrorLine } from '../components/error-line';
import { ProcessView } from '../components/process-view';
import { useAction } from '../components/use-action';

/** The code a new playground starts with. */
const EXAMPLE = `// Tools are at cyrnel.services.<service>.tools.<tool>.invoke(parameters).
// Only what you pass to cyrnel.output() comes back.
cyrnel.output({ hello: 'world' });
`;

/** Where the playground keeps its code: the tab's session storage, so a reload keeps it. */
const CODE_STORAGE = 'cyrnel.playground';

/**
 * `#/playground`: code edited against the declarations of the enabled tools, run as a process
 * with a timeout and followed live.
 */
export function PlaygroundPage({ client }: { client: CyrnelClient }) {
  const [code, setCode] = useState(() => sessionStorage.getItem(CODE_STORAGE) ?? EXAMPLE);
  const [timeoutMs, setTimeoutMs] = useState('30000');
  const [id, setId] = useState<number | undefined>();
  const [types, setTypes] = useState<string | undefined>();
  const { error, busy, run } = useAction();
  useEffect(() => {
    sessionStorage.setItem(CODE_STORAGE, code);
  }, [code]);
  useEffect(() => void client.environment.types().then(setTypes, () => setTypes('')), []);
  const start = () =>
    run(async () => {
      const created = await client.processes.create({ code, timeoutMs: Number(timeoutMs) || 30_000 });
      setId(created.id);
    });
  return (
    <>
      <h1>Playground</h1>
      <CodeEditor code={code} onChange={setCode} types={types} />
      <div class="row">
        <label for="timeout">Timeout (ms)</label>
        <input
          id="timeout"
          type="text"
          inputMode="numeric"
          class="narrow"
          value={timeoutMs}
          onInput={(e) => setTimeoutMs((e.target as HTMLInputElement).value)}
        />
        <button type="button" onClick={start} disabled={busy}>
          Run
        </button>
      </div>
      <ErrorLine error={error} />
      {id === undefined ? null : <ProcessView key={id} client={client} id={id} />}
      <details>
        <summary>Declarations of the enabled tools</summary>
        <pre>{types ?? ''}</pre>
      </details>
    </>
  );
}
