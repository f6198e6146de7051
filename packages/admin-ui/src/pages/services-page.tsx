import type { CyrnelClient } from '@cyrnel/client';
import type { ModuleRecord, ServiceRecord } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { DefinitionSource } from '../components/definition-source';
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
  const install = (event: Event) => {
    event.preventDefault();
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
        <p class="empty">Loading…</p>
      ) : services.length === 0 ? (
        <p class="empty">
          No service yet: install one below from an OpenAPI document or an MCP server definition.
        </p>
      ) : (
        <ServiceTable services={services} />
      )}
      <h2>Install a service</h2>
      <form onSubmit={install}>
        <label for="install-id">Id (used in code: cyrnel.services.&lt;id&gt;)</label>
        <input
          id="install-id"
          type="text"
          value={form.id}
          onInput={(e) => setForm({ ...form, id: (e.target as HTMLInputElement).value })}
        />
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
