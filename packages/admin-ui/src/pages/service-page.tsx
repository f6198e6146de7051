import type { CyrnelClient } from '@cyrnel/client';
import type { KeyRole, ServiceDetail, ToolRecord } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { may } from '../components/access';
import { DefinitionSource, definitionProblem } from '../components/definition-source';
import { ServiceStatsCard } from '../components/efficiency';
import { ErrorLine } from '../components/error-line';
import { Pill } from '../components/pill';
import { PolicyEditor } from '../components/policy-editor';
import { SchemaForm } from '../components/schema-form';
import { ToolTable } from '../components/tool-table';
import { useAction } from '../components/use-action';
import { go } from '../components/use-route';

/** What replacing a definition changed: the tools added and removed, by id. */
function definitionChanges(before: ToolRecord[], after: ToolRecord[]): string {
  const was = new Set(before.map((tool) => tool.id));
  const added = after.filter((tool) => !was.has(tool.id)).map((tool) => tool.id);
  const kept = new Set(after.map((tool) => tool.id));
  const removed = [...was].filter((tool) => !kept.has(tool));
  return `Definition replaced. Added: ${added.join(', ') || 'none'}. Removed: ${removed.join(', ') || 'none'}.`;
}

/**
 * `#/services/<id>`: one service: enable/disable, delete, its secrets and config through forms
 * generated from their schemas (a link to its connections), its policy, replacing its
 * definition, its tools, and (for an admin key) the efficiency of the runs that called it.
 */
export function ServicePage({ client, id, role }: { client: CyrnelClient; id: string; role: KeyRole }) {
  const [service, setService] = useState<ServiceDetail | undefined>();
  const [present, setPresent] = useState<string[]>([]);
  const [tools, setTools] = useState<ToolRecord[]>([]);
  const [config, setConfig] = useState<Record<string, unknown> | undefined>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [update, setUpdate] = useState({ source: 'file', url: '', text: '' });
  const [changes, setChanges] = useState('');
  const [updateTried, setUpdateTried] = useState(false);
  const { error, busy, run } = useAction();
  const load = () =>
    run(async () => {
      setService(await client.services.get(id));
      setPresent((await client.services.getSecrets(id)).present);
      setConfig((await client.services.getConfig(id)).config);
      setTools((await client.tools.list({ serviceId: id, limit: 100 })).items);
    });
  useEffect(() => void load(), [id]);
  if (!service || !config) return <ErrorLine error={error} />;
  const updateProblem = definitionProblem(update);
  const replaceDefinition = (event: Event) => {
    event.preventDefault();
    setUpdateTried(true);
    if (updateProblem) return;
    void run(async () => {
      const updated = await client.services.update(
        id,
        update.source === 'url' ? { url: update.url.trim() } : { definition: update.text },
      );
      const after = (await client.tools.list({ serviceId: id, limit: 100 })).items;
      setService(updated);
      setTools(after);
      setChanges(definitionChanges(tools, after));
    });
  };
  return (
    <>
      <h1>
        {service.id} — {service.name}
      </h1>
      <ErrorLine error={error} />
      <div class="row">
        <Pill on={service.enabled} yes="enabled" no="disabled" />
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => {
              setService(await client.services.setEnabled(id, !service.enabled));
              // Whether each tool is callable follows the service's state.
              setTools((await client.tools.list({ serviceId: id, limit: 100 })).items);
            })
          }
        >
          {service.enabled ? 'Disable' : 'Enable'}
        </button>
        {confirmDelete ? (
          <button
            type="button"
            class="danger"
            onClick={() =>
              run(async () => {
                await client.services.delete(id);
                go('services');
              })
            }
          >
            Really delete {service.id}
          </button>
        ) : (
          <button type="button" class="secondary" onClick={() => setConfirmDelete(true)}>
            Delete…
          </button>
        )}
      </div>
      <p>{service.description}</p>
      {may(role, 'admin') ? <ServiceStatsCard client={client} serviceId={id} /> : null}
      <h2>Secrets</h2>
      <p class="muted">
        The service's own secrets: its shared <code>default</code> connection. A principal's own credentials
        and other shared sets are its{' '}
        <a href={`#/services/${encodeURIComponent(id)}/connections`}>connections</a>.
      </p>
      <SchemaForm
        title="Secrets"
        schema={service.secretsSchema}
        initial={{}}
        secret
        present={present}
        onSave={async (patch) => {
          await client.services.patchSecrets(id, patch);
          setPresent((await client.services.getSecrets(id)).present);
        }}
      />
      <h2>Config</h2>
      <SchemaForm
        title="Config"
        schema={service.configSchema}
        initial={config}
        secret={false}
        onSave={async (patch) => {
          setConfig((await client.services.patchConfig(id, patch)).config);
        }}
      />
      <h2>Policy</h2>
      <PolicyEditor
        client={client}
        serviceId={id}
        onSaved={() =>
          run(async () => setTools((await client.tools.list({ serviceId: id, limit: 100 })).items))
        }
      />
      <h2>Update the definition</h2>
      <form onSubmit={replaceDefinition} noValidate aria-label="Update the definition">
        <DefinitionSource
          prefix="update"
          label="New definition from"
          value={update}
          onChange={setUpdate}
          problem={updateTried ? updateProblem : undefined}
        />
        <div class="row">
          <button type="submit" disabled={busy}>
            Replace the definition
          </button>
        </div>
      </form>
      {changes ? <p data-testid="definition-changes">{changes}</p> : null}
      <h2>Tools ({tools.length})</h2>
      <ToolTable tools={tools} />
    </>
  );
}
