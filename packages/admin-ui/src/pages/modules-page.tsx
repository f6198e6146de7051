import type { CyrnelClient } from '@cyrnel/client';
import type { ModuleRecord } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { useAction } from '../components/use-action';

/** The pill class of a module's status: active is on, failed is bad, the rest off. */
function statusClass(status: ModuleRecord['status']): string {
  return `pill ${status === 'active' ? 'on' : status === 'failed' ? 'bad' : 'off'}`;
}

/** `#/modules`: the modules with their status, enable/disable, reloading the modules directory. */
export function ModulesPage({ client }: { client: CyrnelClient }) {
  const [modules, setModules] = useState<ModuleRecord[] | undefined>();
  const [reload, setReload] = useState('');
  const { error, busy, run } = useAction();
  const load = () => run(async () => setModules((await client.modules.list({ limit: 100 })).items));
  useEffect(() => void load(), []);
  return (
    <>
      <h1>Modules</h1>
      <ErrorLine error={error} />
      <div class="row">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              const result = await client.modules.reload();
              setReload(
                `Loaded: ${result.loaded.join(', ') || 'none'}. Skipped: ${
                  result.skipped.map((entry) => `${entry.dir} (${entry.error})`).join('; ') || 'none'
                }.`,
              );
              setModules((await client.modules.list({ limit: 100 })).items);
            })
          }
        >
          Reload the modules directory
        </button>
      </div>
      {reload ? <p>{reload}</p> : null}
      <table>
        <thead>
          <tr>
            <th>Module</th>
            <th>Type</th>
            <th>Version</th>
            <th>Status</th>
            <th>
              <span class="visually-hidden">Enable or disable</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(modules ?? []).map((module) => (
            <tr key={module.id}>
              <td>
                <a href={`#/modules/${encodeURIComponent(module.id)}`}>{module.id}</a> — {module.name}
              </td>
              <td>{module.type}</td>
              <td>{module.version}</td>
              <td>
                <span class={statusClass(module.status)}>{module.status}</span> {module.error ?? ''}
              </td>
              <td>
                <button
                  type="button"
                  class="secondary"
                  disabled={busy}
                  onClick={() =>
                    run(async () => {
                      await client.modules.setEnabled(module.id, !module.enabled);
                      setModules((await client.modules.list({ limit: 100 })).items);
                    })
                  }
                >
                  {module.enabled ? 'Disable' : 'Enable'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
