import { type CyrnelClient, CyrnelHttpError, createClient } from '@cyrnel/client';
import type {
  ModuleDetail,
  ModuleRecord,
  ProcessRecord,
  ProcessSummary,
  ServiceDetail,
  ServiceRecord,
  ToolCallRecord,
  ToolDetail,
  ToolRecord,
} from '@cyrnel/sdk/api';
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { Markdown } from './components/markdown';
import { SchemaForm } from './components/schema-form';

const KEY_STORAGE = 'cyrnel.apiKey';

/** The message of an error as the UI shows it: the API's text and its stable reason. */
function describeError(error: unknown): string {
  if (error instanceof CyrnelHttpError) return `${error.message} (${error.reason ?? error.code})`;
  return error instanceof Error ? error.message : String(error);
}

function ErrorLine({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  );
}

/** Run an async action, keeping its error for display and a busy flag. */
function useAction() {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run, setError };
}

function useRoute(): string[] {
  const read = () => (location.hash.replace(/^#\/?/, '') || 'services').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

const go = (path: string) => {
  location.hash = `#/${path}`;
};

function Pill({ on, yes, no }: { on: boolean; yes: string; no: string }) {
  return <span class={`pill ${on ? 'on' : 'off'}`}>{on ? yes : no}</span>;
}

// Sign in ------------------------------------------------------------------------------------

function SignIn({ onSignedIn }: { onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const { error, busy, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const client = createClient({ baseUrl: location.origin, apiKey: key.trim() });
      await client.tools.list({ limit: 1 });
      onSignedIn(key.trim());
    });
  };
  return (
    <main class="signin">
      <h1>Sign in to cyrnel</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="current-password"
          value={key}
          onInput={(event) => setKey((event.target as HTMLInputElement).value)}
        />
        <div class="row">
          <button type="submit" disabled={busy || key.trim() === ''}>
            Sign in
          </button>
        </div>
      </form>
      <ErrorLine error={error} />
    </main>
  );
}

// Services -----------------------------------------------------------------------------------

function Services({ client }: { client: CyrnelClient }) {
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
  const onFile = async (event: Event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) setForm({ ...form, text: await file.text() });
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
        <label for="install-source">Definition from</label>
        <select
          id="install-source"
          value={form.source}
          onChange={(e) => setForm({ ...form, source: (e.target as HTMLSelectElement).value })}
        >
          <option value="file">a file</option>
          <option value="url">a URL</option>
          <option value="text">pasted text</option>
        </select>
        {form.source === 'url' ? (
          <>
            <label for="install-url">URL</label>
            <input
              id="install-url"
              type="url"
              value={form.url}
              onInput={(e) => setForm({ ...form, url: (e.target as HTMLInputElement).value })}
            />
          </>
        ) : form.source === 'file' ? (
          <>
            <label for="install-file">File</label>
            <input id="install-file" type="file" onChange={onFile} />
          </>
        ) : (
          <>
            <label for="install-text">Definition</label>
            <textarea
              id="install-text"
              class="code"
              value={form.text}
              onInput={(e) => setForm({ ...form, text: (e.target as HTMLTextAreaElement).value })}
            />
          </>
        )}
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

function Service({ client, id }: { client: CyrnelClient; id: string }) {
  const [service, setService] = useState<ServiceDetail | undefined>();
  const [present, setPresent] = useState<string[]>([]);
  const [tools, setTools] = useState<ToolRecord[]>([]);
  const [config, setConfig] = useState<Record<string, unknown> | undefined>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [update, setUpdate] = useState({ source: 'file', url: '', text: '' });
  const [changes, setChanges] = useState('');
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
  const replaceDefinition = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const before = new Set(tools.map((tool) => tool.id));
      const updated = await client.services.update(
        id,
        update.source === 'url' ? { url: update.url.trim() } : { definition: update.text },
      );
      const after = (await client.tools.list({ serviceId: id, limit: 100 })).items;
      const added = after.filter((tool) => !before.has(tool.id)).map((tool) => tool.id);
      const kept = new Set(after.map((tool) => tool.id));
      const removed = [...before].filter((tool) => !kept.has(tool));
      setService(updated);
      setTools(after);
      setChanges(
        `Definition replaced. Added: ${added.join(', ') || 'none'}. Removed: ${removed.join(', ') || 'none'}.`,
      );
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
          onClick={() => run(async () => setService(await client.services.setEnabled(id, !service.enabled)))}
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
      <h2>Secrets</h2>
      <SchemaForm
        key={`secrets-${present.join(',')}`}
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
      <h2>Update the definition</h2>
      <form onSubmit={replaceDefinition}>
        <label for="update-source">New definition from</label>
        <select
          id="update-source"
          value={update.source}
          onChange={(e) => setUpdate({ ...update, source: (e.target as HTMLSelectElement).value })}
        >
          <option value="file">a file</option>
          <option value="url">a URL</option>
          <option value="text">pasted text</option>
        </select>
        {update.source === 'url' ? (
          <>
            <label for="update-url">URL</label>
            <input
              id="update-url"
              type="url"
              value={update.url}
              onInput={(e) => setUpdate({ ...update, url: (e.target as HTMLInputElement).value })}
            />
          </>
        ) : update.source === 'file' ? (
          <>
            <label for="update-file">File</label>
            <input
              id="update-file"
              type="file"
              onChange={async (e) => {
                const file = (e.target as HTMLInputElement).files?.[0];
                if (file) setUpdate({ ...update, text: await file.text() });
              }}
            />
          </>
        ) : (
          <>
            <label for="update-text">Definition</label>
            <textarea
              id="update-text"
              class="code"
              value={update.text}
              onInput={(e) => setUpdate({ ...update, text: (e.target as HTMLTextAreaElement).value })}
            />
          </>
        )}
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

// Tools --------------------------------------------------------------------------------------

function ToolTable({ tools }: { tools: ToolRecord[] }) {
  if (tools.length === 0) return <p class="empty">No tool.</p>;
  return (
    <table>
      <tbody>
        {tools.map((tool) => (
          <tr key={`${tool.serviceId}.${tool.id}`}>
            <td>
              <a href={`#/tools/${encodeURIComponent(tool.serviceId)}/${encodeURIComponent(tool.id)}`}>
                {tool.serviceId}.{tool.id}
              </a>
            </td>
            <td>{tool.description.split('\n')[0]}</td>
            <td>
              <Pill on={tool.effectivelyEnabled} yes="callable" no="off" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Tools({ client }: { client: CyrnelClient }) {
  const [query, setQuery] = useState('');
  const [tools, setTools] = useState<ToolRecord[]>([]);
  const { error, run } = useAction();
  useEffect(() => {
    const timer = setTimeout(
      () =>
        void run(async () =>
          setTools(
            (await client.tools.list(query.trim() ? { query: query.trim(), limit: 20 } : { limit: 50 }))
              .items,
          ),
        ),
      200,
    );
    return () => clearTimeout(timer);
  }, [query]);
  return (
    <>
      <h1>Tools</h1>
      <label for="tool-search">Search (words of the task, or a tool id)</label>
      <input
        id="tool-search"
        type="text"
        value={query}
        onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
      />
      <ErrorLine error={error} />
      <ToolTable tools={tools} />
    </>
  );
}

function Tool({ client, serviceId, toolId }: { client: CyrnelClient; serviceId: string; toolId: string }) {
  const [tool, setTool] = useState<ToolDetail | undefined>();
  const [docs, setDocs] = useState('');
  const { error, busy, run } = useAction();
  useEffect(
    () =>
      void run(async () => {
        setTool(await client.tools.get(serviceId, toolId));
        setDocs(await client.tools.docs(serviceId, toolId));
      }),
    [serviceId, toolId],
  );
  if (!tool) return <ErrorLine error={error} />;
  return (
    <>
      <h1>
        {serviceId}.{toolId}
      </h1>
      <ErrorLine error={error} />
      <div class="row">
        <Pill on={tool.enabled} yes="enabled" no="disabled" />
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            run(async () => setTool(await client.tools.setEnabled(serviceId, toolId, !tool.enabled)))
          }
        >
          {tool.enabled ? 'Disable' : 'Enable'}
        </button>
      </div>
      <h2>Docs</h2>
      <div data-testid="tool-docs">
        <Markdown text={docs} />
      </div>
      <div class="grid">
        <div>
          <h2>Input schema</h2>
          <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
        </div>
        <div>
          <h2>Output schema</h2>
          <pre>{JSON.stringify(tool.outputSchema, null, 2)}</pre>
        </div>
      </div>
    </>
  );
}

// Processes ----------------------------------------------------------------------------------

const EXAMPLE = `// Tools are at cyrnel.services.<service>.tools.<tool>.invoke(parameters).
// Only what you pass to cyrnel.output() comes back.
cyrnel.output({ hello: 'world' });
`;

function CallsTable({ calls }: { calls: ToolCallRecord[] }) {
  if (calls.length === 0) return <p class="empty">No tool call.</p>;
  return (
    <table data-testid="calls">
      <thead>
        <tr>
          <th>Tool</th>
          <th>Result</th>
          <th>Duration</th>
        </tr>
      </thead>
      <tbody>
        {calls.map((call, index) => (
          <tr key={index}>
            <td>
              {call.serviceId}.{call.toolId}
            </td>
            <td>
              {call.ok ? (
                <span class="pill on">ok</span>
              ) : (
                <span class="pill bad">{call.errorReason ?? 'failed'}</span>
              )}
            </td>
            <td>{call.durationMs} ms</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A process followed live: its events while it runs, then its record, output and calls. */
function useProcess(client: CyrnelClient, id: number | undefined) {
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
    void (async () => {
      try {
        setRecord(await client.processes.get(id));
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
          if (event.type === 'state') setRecord(await client.processes.get(id));
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

function ProcessView({ client, id }: { client: CyrnelClient; id: number }) {
  const view = useProcess(client, id);
  const { error, run } = useAction();
  const running = view.record !== undefined && view.record.state !== 'idle';
  return (
    <section aria-live="polite">
      <ErrorLine error={view.error ?? error} />
      {view.record ? (
        <p>
          Process {view.record.id}: <strong data-testid="process-state">{view.record.state}</strong>
          {view.record.exitState ? (
            <>
              {' '}
              — <strong data-testid="exit-state">{view.record.exitState}</strong>
            </>
          ) : null}
          {view.record.error ? <span class="error">{view.record.error}</span> : null}
          {view.record.hostId ? <span class="muted"> on {view.record.hostId}</span> : null}
        </p>
      ) : null}
      {running ? (
        <button
          type="button"
          class="danger"
          onClick={() => run(async () => void (await client.processes.kill(id)))}
        >
          Kill
        </button>
      ) : null}
      <details open>
        <summary>
          <h2 class="inline">Output</h2>
        </summary>
        <pre data-testid="output">
          {view.output === undefined ? '' : JSON.stringify(view.output, null, 2)}
        </pre>
      </details>
      <h2>Tool calls</h2>
      <CallsTable calls={view.calls} />
      <h2>stdout</h2>
      <pre data-testid="stdout">{view.stdout}</pre>
      {view.stderr ? (
        <>
          <h2>stderr</h2>
          <pre>{view.stderr}</pre>
        </>
      ) : null}
    </section>
  );
}

/**
 * The code editor: a text area at once, replaced by CodeMirror with TypeScript completions and
 * diagnostics once its chunk (and the language service worker) has loaded.
 */
function CodeEditor({
  code,
  onChange,
  types,
}: {
  code: string;
  onChange: (code: string) => void;
  types: string | undefined;
}) {
  const [host, setHost] = useState<HTMLDivElement | null>(null);
  const [mounted, setMounted] = useState(false);
  // The editor starts from the text as it is when it loads, not as it was when loading began.
  const latest = useRef(code);
  latest.current = code;
  useEffect(() => {
    if (!host || types === undefined) return;
    let editor: { destroy(): void } | undefined;
    let cancelled = false;
    void import('./editor/editor').then(({ createEditor }) => {
      if (cancelled) return;
      editor = createEditor(host, latest.current, onChange, types);
      setMounted(true);
    });
    return () => {
      cancelled = true;
      editor?.destroy();
    };
  }, [host, types]);
  return (
    <>
      <label for="code">Code (TypeScript)</label>
      {mounted ? null : (
        <textarea
          id="code"
          class="code"
          spellcheck={false}
          value={code}
          onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
        />
      )}
      <div ref={setHost} class="editor" data-testid="editor" />
    </>
  );
}

function Playground({ client }: { client: CyrnelClient }) {
  const [code, setCode] = useState(() => sessionStorage.getItem('cyrnel.playground') ?? EXAMPLE);
  const [timeoutMs, setTimeoutMs] = useState('30000');
  const [id, setId] = useState<number | undefined>();
  const [types, setTypes] = useState<string | undefined>();
  const { error, busy, run } = useAction();
  useEffect(() => {
    sessionStorage.setItem('cyrnel.playground', code);
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

function Processes({ client }: { client: CyrnelClient }) {
  const [state, setState] = useState('');
  const [items, setItems] = useState<ProcessSummary[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const { error, run } = useAction();
  useEffect(
    () =>
      void run(async () => {
        const page = await client.processes.list({
          limit: 20,
          ...(state ? { state: state as ProcessSummary['state'] } : {}),
          ...(cursor ? { cursor } : {}),
        });
        setItems(page.items);
        setNext(page.nextCursor);
      }),
    [state, cursor],
  );
  return (
    <>
      <h1>Processes</h1>
      <label for="state-filter">State</label>
      <select
        id="state-filter"
        value={state}
        onChange={(e) => setState((e.target as HTMLSelectElement).value)}
      >
        <option value="">any</option>
        <option value="queued">queued</option>
        <option value="running">running</option>
        <option value="idle">idle</option>
      </select>
      <ErrorLine error={error} />
      {items?.length === 0 ? <p class="empty">No process yet: run code in the playground.</p> : null}
      <table>
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

function Process({ client, id }: { client: CyrnelClient; id: number }) {
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
      <ProcessView key={`${id}-${run}`} client={client} id={id} />
    </>
  );
}

// Modules and connect ------------------------------------------------------------------------

function Modules({ client }: { client: CyrnelClient }) {
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
            <th />
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
                <span
                  class={`pill ${module.status === 'active' ? 'on' : module.status === 'failed' ? 'bad' : 'off'}`}
                >
                  {module.status}
                </span>{' '}
                {module.error ?? ''}
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

function Module({ client, id }: { client: CyrnelClient; id: string }) {
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
        key={`secrets-${present.join(',')}`}
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

function Connect() {
  const origin = location.origin;
  const http = JSON.stringify(
    { mcpServers: { cyrnel: { url: `${origin}/mcp`, headers: { Authorization: 'Bearer cyk_…' } } } },
    null,
    2,
  );
  const stdio = JSON.stringify(
    {
      mcpServers: {
        cyrnel: {
          command: 'npx',
          args: ['-y', '@cyrnel/server', 'mcp'],
          env: { CYRNEL_URL: origin, CYRNEL_API_KEY: 'cyk_…' },
        },
      },
    },
    null,
    2,
  );
  const client = `import { createClient } from '@cyrnel/client';

const client = createClient({ baseUrl: '${origin}', apiKey: process.env.CYRNEL_API_KEY });
const { output } = await client.processes.run("cyrnel.output({ ok: true })", { throwOnFailure: true });`;
  return (
    <>
      <h1>Connect</h1>
      <h2>MCP over HTTP (Claude Code, Cursor, VS Code)</h2>
      <pre>{http}</pre>
      <h2>MCP over stdio (Claude Desktop)</h2>
      <pre>{stdio}</pre>
      <h2>@cyrnel/client</h2>
      <pre>{client}</pre>
    </>
  );
}

// The shell ----------------------------------------------------------------------------------

const PAGES: [string, string][] = [
  ['services', 'Services'],
  ['tools', 'Tools'],
  ['playground', 'Playground'],
  ['processes', 'Processes'],
  ['modules', 'Modules'],
  ['connect', 'Connect'],
];

function Shell({ client, onSignOut }: { client: CyrnelClient; onSignOut: () => void }) {
  const route = useRoute();
  const [status, setStatus] = useState('');
  useEffect(() => {
    void (async () => {
      const health = await client.health().catch(() => undefined);
      const document = await client.openapi().catch(() => undefined);
      const environments = await client.modules.list({ type: 'environment', limit: 100 }).then(
        (page) => page.items.find((module) => module.status === 'active')?.id ?? 'none',
        () => 'unknown',
      );
      setStatus(
        `${health?.status === 'ok' ? 'healthy' : 'unreachable'} · API ${document?.info?.version ?? '?'} · environment ${environments}`,
      );
    })();
  }, []);
  const [page, ...rest] = route;
  const body =
    page === 'services' && rest[0] ? (
      <Service client={client} id={rest[0]} />
    ) : page === 'services' ? (
      <Services client={client} />
    ) : page === 'tools' && rest[0] && rest[1] ? (
      <Tool client={client} serviceId={rest[0]} toolId={rest[1]} />
    ) : page === 'tools' ? (
      <Tools client={client} />
    ) : page === 'playground' ? (
      <Playground client={client} />
    ) : page === 'processes' && rest[0] ? (
      <Process client={client} id={Number(rest[0])} />
    ) : page === 'processes' ? (
      <Processes client={client} />
    ) : page === 'modules' && rest[0] ? (
      <Module client={client} id={rest[0]} />
    ) : page === 'modules' ? (
      <Modules client={client} />
    ) : page === 'connect' ? (
      <Connect />
    ) : (
      <p class="empty">No such page.</p>
    );
  return (
    <>
      <header>
        <strong>cyrnel</strong>
        <nav aria-label="Pages">
          {PAGES.map(([path, label]) => (
            <a key={path} href={`#/${path}`} aria-current={page === path ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="status" data-testid="status">
          {status}
        </span>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>{body}</main>
    </>
  );
}

function App() {
  const [client, setClient] = useState<CyrnelClient | undefined>();
  const [needsKey, setNeedsKey] = useState(false);
  const connect = useCallback(async (key: string | undefined) => {
    const candidate = createClient({ baseUrl: location.origin, ...(key ? { apiKey: key } : {}) });
    try {
      await candidate.tools.list({ limit: 1 });
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      setClient(candidate);
      setNeedsKey(false);
    } catch {
      sessionStorage.removeItem(KEY_STORAGE);
      setNeedsKey(true);
    }
  }, []);
  useEffect(() => void connect(sessionStorage.getItem(KEY_STORAGE) ?? undefined), []);
  if (needsKey) return <SignIn onSignedIn={(key) => void connect(key)} />;
  if (!client) return <p class="empty">Connecting…</p>;
  return (
    <Shell
      client={client}
      onSignOut={() => {
        sessionStorage.removeItem(KEY_STORAGE);
        setClient(undefined);
        setNeedsKey(true);
      }}
    />
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
