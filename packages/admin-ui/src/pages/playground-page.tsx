import type { CyrnelClient } from '@cyrnel/client';
import type { KeyRole } from '@cyrnel/sdk/api';
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
export function PlaygroundPage({ client, role }: { client: CyrnelClient; role: KeyRole }) {
  const [code, setCode] = useState(() => sessionStorage.getItem(CODE_STORAGE) ?? EXAMPLE);
  const [timeoutMs, setTimeoutMs] = useState('30000');
  const [id, setId] = useState<number | undefined>();
  const [types, setTypes] = useState<string | undefined>();
  const { error, busy, run } = useAction();
  useEffect(() => {
    sessionStorage.setItem(CODE_STORAGE, code);
  }, [code]);
  useEffect(() => void client.environment.types().then(setTypes, () => setTypes('')), []);
  const timeout = timeoutMs.trim();
  const timeoutProblem =
    timeout === '' || (/^\d+$/.test(timeout) && Number(timeout) > 0)
      ? undefined
      : "The timeout is a whole number of milliseconds above 0, digits only (empty: the server's default).";
  const [showProblem, setShowProblem] = useState(false);
  const start = () => {
    setShowProblem(true);
    if (timeoutProblem) return;
    void run(async () => {
      const created = await client.processes.create({
        code,
        ...(timeout ? { timeoutMs: Number(timeout) } : {}),
      });
      setId(created.id);
    });
  };
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
          aria-invalid={showProblem && timeoutProblem ? 'true' : undefined}
          aria-describedby={showProblem && timeoutProblem ? 'timeout-problem' : undefined}
          onInput={(e) => setTimeoutMs((e.target as HTMLInputElement).value)}
          onBlur={() => setShowProblem(true)}
        />
        <button type="button" onClick={start} disabled={busy}>
          Run
        </button>
      </div>
      {showProblem && timeoutProblem ? (
        <p id="timeout-problem" class="error field-problem" role="alert">
          {timeoutProblem}
        </p>
      ) : null}
      <ErrorLine error={error} />
      {id === undefined ? null : <ProcessView key={id} client={client} id={id} role={role} />}
      <details>
        <summary>Declarations of the enabled tools</summary>
        <pre>{types ?? ''}</pre>
      </details>
    </>
  );
}
