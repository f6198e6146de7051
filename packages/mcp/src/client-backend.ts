import { type CyrnelClient, CyrnelHttpError } from '@cyrnel/client';
import type { DiscoveredService } from '@cyrnel/sdk';
import type { ProcessEvent } from '@cyrnel/sdk/api';
import { callableServices } from './callable-services';
import { agentOperations, type McpBackend } from './mcp-backend';
import { sleep } from './sleep';

/** Options of {@link createClientBackend}. */
export interface ClientBackendOptions {
  /** How often a running process is looked at while waiting. Default 100 ms. */
  readonly pollMs?: number;
}

/** The services an agent can call: listed when the key may read `/services`, else counted from `/tools`. */
async function servicesOf(client: CyrnelClient): Promise<DiscoveredService[]> {
  try {
    const page = await client.services.list({ enabled: true, failed: false, limit: 500 });
    return callableServices(page.items);
  } catch (error) {
    // An agent key may not read /services (admin-only): count the tools it may list instead.
    if (!(error instanceof CyrnelHttpError) || error.status !== 403) throw error;
    const counts = new Map<string, number>();
    for await (const tool of client.tools.iterate({ enabled: true, limit: 500 })) {
      counts.set(tool.serviceId, (counts.get(tool.serviceId) ?? 0) + 1);
    }
    return [...counts].map(([id, toolCount]) => ({ id, name: id, description: '', toolCount }));
  }
}

/** A process's event stream, ending quietly when `signal` aborts. */
async function* followEvents(
  client: CyrnelClient,
  id: number,
  signal: AbortSignal,
): AsyncGenerator<ProcessEvent, void, undefined> {
  try {
    yield* client.processes.events(id, { signal, timeoutMs: 0 });
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

/**
 * The MCP backend over a remote cyrnel server (what the stdio bridge uses): every operation is a
 * call of `@cyrnel/client` with the agent's key; a wait polls the process; the catalog's version
 * is the server's `GET /tools/version` (looked at every second while a client listens). It decides no
 * approvals (the client has no approvals API): a run that waits for one is answered with where a
 * person approves it, and its output so far stays on the server until it ends (the HTTP API
 * reads the output of idle processes only).
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl: process.env.CYRNEL_URL, apiKey: process.env.CYRNEL_API_KEY });
 * await serveCyrnelStdio(createClientBackend(client), { version: '0.1.0' });
 * ```
 */
export function createClientBackend(client: CyrnelClient, options: ClientBackendOptions = {}): McpBackend {
  const pollMs = options.pollMs ?? 100;
  const { processes } = client;
  const shared = agentOperations(client, processes);
  // A server older than `GET /tools/version` answers 404: its catalog is then compared by what
  // it renders to (undefined), as before.
  let unversioned = false;
  return {
    ...shared,
    async catalogVersion() {
      if (unversioned) return undefined;
      try {
        return (await client.tools.version()).version;
      } catch (error) {
        if (!(error instanceof CyrnelHttpError) || error.status !== 404) throw error;
        unversioned = true;
        return undefined;
      }
    },
    processes: {
      ...shared.processes,
      // The MCP caller's trace goes on at the server, in the request's `traceparent` header.
      create: (request, trace) => processes.create(request, trace ? { trace } : {}),
      calls: (id) => processes.calls(id).then((page) => page.items),
      check: (code) => processes.check(code),
      events: (id, signal) => followEvents(client, id, signal),
      async settle(id, { timeoutMs, signal, reportedApproval }) {
        const until = Date.now() + timeoutMs;
        for (;;) {
          const record = await processes.get(id);
          const waitsAnew = record.state === 'waiting' && record.approvalId !== reportedApproval;
          if (record.state === 'idle' || waitsAnew || signal.aborted || Date.now() >= until) return record;
          await sleep(Math.min(pollMs, until - Date.now()), signal);
        }
      },
    },
    services: () => servicesOf(client),
  };
}
