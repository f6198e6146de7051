import { type CyrnelClient, CyrnelHttpError } from '@cyrnel/client';
import type { McpBackend, ProcessView } from './backend';
import { callableServices, discoveredTool, processView, typesOf } from './backend-views';

/** Options of {@link createClientBackend}. */
export interface ClientBackendOptions {
  /** How often a running process is looked at while waiting. Default 100 ms. */
  readonly pollMs?: number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The MCP backend over a remote cyrnel server (what the stdio bridge uses): every operation is a
 * call of `@cyrnel/client` with the agent's key.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: process.env.CYRNEL_URL, apiKey: process.env.CYRNEL_API_KEY });
 * serveStdio(() => createCyrnelMcpServer(createClientBackend(client), { version }));
 * ```
 */
export function createClientBackend(client: CyrnelClient, options: ClientBackendOptions = {}): McpBackend {
  const pollMs = options.pollMs ?? 100;
  const view = async (id: number): Promise<ProcessView> => {
    const record = await client.processes.get(id);
    const idle = record.state === 'idle';
    const [output, stdout, stderr, calls] = await Promise.all([
      idle ? client.processes.output(id) : {},
      idle ? client.processes.stdout(id) : '',
      idle ? client.processes.stderr(id) : '',
      client.processes.calls(id),
    ]);
    return processView(record, { output, stdout, stderr }, calls.items);
  };
  return {
    async searchTools({ query, serviceId, limit }) {
      const page = await client.tools.list({
        query,
        enabled: true,
        limit,
        ...(serviceId ? { serviceId } : {}),
      });
      return page.items.map(discoveredTool);
    },
    toolTypes: (tools) =>
      typesOf(
        tools,
        (serviceId, toolId) =>
          client.tools.get(serviceId, toolId).then(
            (tool) => tool.effectivelyEnabled,
            () => false,
          ),
        (known) => client.environment.types({ tools: known }),
      ),
    async services() {
      try {
        const page = await client.services.list({ enabled: true, failed: false, limit: 500 });
        return callableServices(page.items);
      } catch (error) {
        // An agent key may not read /services: count the tools it may list instead.
        if (!(error instanceof CyrnelHttpError) || error.status !== 403) throw error;
        const counts = new Map<string, number>();
        for await (const tool of client.tools.iterate({ enabled: true, limit: 500 })) {
          counts.set(tool.serviceId, (counts.get(tool.serviceId) ?? 0) + 1);
        }
        return [...counts].map(([id, toolCount]) => ({ id, name: id, description: '', toolCount }));
      }
    },
    allTypes: () => client.environment.types(),
    runtimeDocs: () => client.environment.docs(),
    toolDocs: (serviceId, toolId) => client.tools.docs(serviceId, toolId),
    async createProcess(code, timeoutMs) {
      const record = await client.processes.create({
        code,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      return record.id;
    },
    async waitProcess(id, waitMs, { signal, onCall }) {
      const until = Date.now() + waitMs;
      let seen = 0;
      for (;;) {
        const record = await client.processes.get(id);
        if (onCall) {
          const { items } = await client.processes.calls(id);
          if (items.length > seen) {
            seen = items.length;
            onCall(seen);
          }
        }
        if (record.state === 'idle' || signal.aborted || Date.now() >= until) break;
        await sleep(Math.min(pollMs, until - Date.now()), signal);
      }
      return view(id);
    },
    async killProcess(id) {
      const record = await client.processes.get(id);
      if (record.state !== 'idle') await client.processes.kill(id);
    },
  };
}
