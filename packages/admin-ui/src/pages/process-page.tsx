import type { CyrnelClient } from '@cyrnel/client';
import type { KeyRole } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { ProcessView } from '../components/process-view';
import { useAction } from '../components/use-action';

/** `#/processes/<id>`: one process: its code, running it again, and the run followed live. */
export function ProcessPage({ client, id, role }: { client: CyrnelClient; id: number; role: KeyRole }) {
  const [code, setCode] = useState('');
  const [run, setRun] = useState(0);
  const action = useAction();
  useEffect(() => void client.processes.code(id).then(setCode, () => setCode('')), [id]);
  return (
    <>
      <h1>Process #{id}</h1>
      <div class="row">
        <button
          type="button"
          class="secondary"
          onClick={() =>
            action.run(async () => {
              await client.processes.start(id, { force: true });
              setRun(run + 1);
            })
          }
        >
          Run again
        </button>
      </div>
      <ErrorLine error={action.error} />
      <h2>Code</h2>
      <pre>{code}</pre>
      <ProcessView key={`${id}-${run}`} client={client} id={id} role={role} />
    </>
  );
}
