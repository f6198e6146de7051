import type { CyrnelClient } from '@cyrnel/client';
import type { ModuleDetail } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { SchemaForm } from '../components/schema-form';
import { useAction } from '../components/use-action';

/** `#/modules/<id>`: one module: its status, its config and secrets through generated forms. */
export function ModulePage({ client, id }: { client: CyrnelClient; id: string }) {
  const [module, setModule] = useState<ModuleDetail | undefined>();
  const [config, setConfig] = useState<Record<string, unknown> | undefined>();
  const [present, setPresent] = useState<string[]>([]);
  const { error, run } = useAction();
  useEffect(
    () =>
      void run(async () => {
        setModule(await client.modules.get(id));
        setConfig((await client.modules.getConfig(id)).config);
        setPresent((await client.modules.getSecrets(id)).present);
      }),
    [id],
  );
  if (!module || !config) return <ErrorLine error={error} />;
  return (
    <>
      <h1>
        {module.id} — {module.name}
      </h1>
      <p>
        {module.type} {module.version} · <span class="pill">{module.status}</span> {module.error ?? ''}
      </p>
      <p>{module.description}</p>
      <h2>Config</h2>
      <SchemaForm
        title="Config"
        schema={module.configSchema}
        initial={config}
        secret={false}
        onSave={async (patch) => {
          setConfig((await client.modules.patchConfig(id, patch)).config);
          setModule(await client.modules.get(id));
        }}
      />
      <h2>Secrets</h2>
      <SchemaForm
        title="Secrets"
        schema={module.secretsSchema}
        initial={{}}
        secret
        present={present}
        onSave={async (patch) => {
          await client.modules.patchSecrets(id, patch);
          setPresent((await client.modules.getSecrets(id)).present);
        }}
      />
    </>
  );
}
