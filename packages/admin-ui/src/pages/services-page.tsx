import type { CyrnelClient } from '@cyrnel/client';
import { isValidIdentifier } from '@cyrnel/sdk';
import type { ModuleRecord, ServiceRecord } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { DefinitionSource, definitionProblem } from '../components/definition-source';
import { ErrorLine } from '../components/error-line';
import { Pill } from '../components/pill';
import { useAction } from '../components/use-action';
import { go } from '../components/use-route';

/** The installed services as rows linking to their pages. */
function ServiceTable({ services }: { services: ServiceRecord[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>Service</th>
          <th>Adapter</th>
          <th>Tools</th>
          <th>State</th>
        </tr>
      </thead>
      <tbody>
        {services.map((service) => (
          <tr key={service.id}>
            <td>
              <a href={`#/services/${encodeURIComponent(service.id)}`}>{service.id}</a> — {service.name}
            </td>
            <td>{service.adapter}</td>
            <td>{service.toolCount}</td>
            <td>
              <Pill on={service.enabled} yes="enabled" no="disabled" />{' '}
              {service.error ? <span class="pill bad">{service.error}</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `#/services`: the installed services, and installing one from a file, a URL or pasted text. */
export function ServicesPage({ client }: { client: CyrnelClient }) {
  const [services, setServices] = useState<ServiceRecord[] | undefined>();
  const [adapters, setAdapters] = useState<ModuleRecord[]>([]);
  const { error, busy, run } = useAction();
  const [form, setForm] = useState({ id: '', adapter: 'openapi', source: 'file', url: '', text: '' });
  const load = () =>
    run(async () => {
      setServices((await client.services.list({ limit: 100 })).items);
      setAdapters((await client.modules.list({ type: 'adapter', limit: 100 })).items);
    });
  useEffect(() => void load(), []);
  const [tried, setTried] = useState(false);
  const idProblem = isValidIdentifier(form.id.trim())
    ? undefined
    : 'The id is how code names the service (cyrnel.services.<id>): letters, digits, _ and $, not starting with a digit, and not a reserved word such as delete.';
  const sourceProblem = definitionProblem(form);
  const install = (event: Event) => {
    event.preventDefault();
    setTried(true);
    if (idProblem || sourceProblem) return;
    void run(async () => {
      const common = { id: form.id.trim(), adapter: form.adapter };
      const service =
        form.source === 'url'
          ? await client.services.install({ ...common, url: form.url.trim() })
          : await client.services.install({ ...common, definition: form.text });
      go(`services/${service.id}`);
    });
  };
  return (
    <>
      <h1>Services</h1>
      <ErrorLine error={error} />
      {services === undefined ? (
        error === undefined ? (
          <p class="empty" role="status">
            Loading…
          </p>
        ) : null
      ) : services.length === 0 ? (
        <p class="empty">
          No service yet: install one below from an OpenAPI document or an MCP server definition.
        </p>
      ) : (
        <ServiceTable services={services} />
      )}
      <h2>Install a service</h2>
      <form onSubmit={install} noValidate aria-label="Install a service">
        <label for="install-id">Id (used in code: cyrnel.services.&lt;id&gt;)</label>
        <input
          id="install-id"
          type="text"
          value={form.id}
          aria-invalid={tried && idProblem ? 'true' : undefined}
          aria-describedby={tried && idProblem ? 'install-id-problem' : undefined}
          onInput={(e) => setForm({ ...form, id: (e.target as HTMLInputElement).value })}
        />
        {tried && idProblem ? (
          <p id="install-id-problem" class="error field-problem" role="alert">
            {idProblem}
          </p>
        ) : null}
        <label for="install-adapter">Adapter</label>
        <select
          id="install-adapter"
          value={form.adapter}
          onChange={(e) => setForm({ ...form, adapter: (e.target as HTMLSelectElement).value })}
        >
          {adapters.map((adapter) => (
            <option key={adapter.id} value={adapter.id}>
              {adapter.id} — {adapter.name}
            </option>
          ))}
        </select>
        <DefinitionSource
          prefix="install"
          label="Definition from"
          value={form}
          onChange={(next) => setForm({ ...form, ...next })}
          problem={tried ? sourceProblem : undefined}
        />
        <div class="row">
          <button type="submit" disabled={busy || form.id.trim() === ''}>
            {busy ? 'Installing…' : 'Install'}
          </button>
          {busy ? (
            <span role="status">
              {form.source === 'url'
                ? 'Downloading the definition and generating its tools…'
                : 'Generating the tools…'}
            </span>
          ) : null}
        </div>
      </form>
    </>
  );
}
