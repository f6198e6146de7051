import type { CyrnelHost, ProcessesApi } from '@cyrnel/core';
import { type DiscoveredService, isCyrnelError } from '@cyrnel/sdk';
import type { ProcessRecord, ProcessResult } from '@cyrnel/sdk/api';
import type { McpBackend, ProcessView } from './backend';
import { callableServices, discoveredTool, processView, typesOf } from './backend-views';

/** Options of {@link createHostBackend}. */
export interface HostBackendOptions {
  readonly host: CyrnelHost;
  /** The processes API scoped to the caller (`scopeProcesses` of `@cyrnel/core`); default the host's. */
  readonly processes?: ProcessesApi;
  /** How often finished tool calls are counted while waiting, for progress. Default 100 ms. */
  readonly pollMs?: number;
}

/** The enabled services of a host, listed once per catalog version (every MCP request reads them). */
const SERVICES = new WeakMap<CyrnelHost, { version: string; services: Promise<DiscoveredService[]> }>();

function servicesOf(host: CyrnelHost): Promise<DiscoveredService[]> {
  const version = host.catalogVersion();
  const cached = SERVICES.get(host);
  if (cached && cached.version === version) return cached.services;
  const services = host.services
    .list({ enabled: true, failed: false, limit: 500 })
    .then((page) => callableServices(page.items));
  SERVICES.set(host, { version, services });
  // A failed listing is not kept: the next request lists again.
  services.catch(() => {
    if (SERVICES.get(host)?.services === services) SERVICES.delete(host);
  });
  return services;
}

/** The view of a process: record plus results once idle, live tool calls while it runs. */
export async function viewOf(
  processes: ProcessesApi,
  record: ProcessRecord | ProcessResult,
): Promise<ProcessView> {
  const idle = record.state === 'idle';
  const [output, stdout, stderr] =
    'output' in record
      ? [record.output, record.stdout, record.stderr]
      : idle
        ? await Promise.all([
            processes.output(record.id),
            processes.stdout(record.id),
            processes.stderr(record.id),
          ])
        : [{}, '', ''];
  return processView(
    record,
    { output: output as Record<string, unknown>, stdout, stderr },
    await processes.calls(record.id),
  );
}

/**
 * The MCP backend over the in-process core host (what `/mcp` on the server uses).
 *
 * @example
 * ```ts
 * const backend = createHostBackend({ host, processes: scopeProcesses(host.processes, actor) });
 * const server = createCyrnelMcpServer(backend);
 * ```
 */
export function createHostBackend(options: HostBackendOptions): McpBackend {
  const { host } = options;
  const processes = options.processes ?? host.processes;
  const pollMs = options.pollMs ?? 100;
  return {
    async searchTools({ query, serviceId, limit }) {
      const page = await host.tools.list({
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
          host.tools.get(serviceId, toolId).then(
            (tool) => tool.effectivelyEnabled,
            () => false,
          ),
        (known) => host.environment.types({ tools: known }),
      ),
    services: () => servicesOf(host),
    allTypes: () => host.environment.types(),
    runtimeDocs: () => host.environment.docs(),
    toolDocs: (serviceId, toolId) => host.tools.docs(serviceId, toolId),
    async createProcess(code, timeoutMs) {
      const record = await processes.create({ code, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
      return record.id;
    },
    async waitProcess(id, waitMs, { signal, onCall }) {
      let seen = 0;
      const timer = onCall
        ? setInterval(() => {
            processes.calls(id).then(
              (calls) => {
                if (calls.length > seen) {
                  seen = calls.length;
                  onCall(seen);
                }
              },
              () => undefined,
            );
          }, pollMs)
        : undefined;
      let result: ProcessResult | undefined;
      try {
        const waited = processes.wait(id, { timeoutMs: waitMs }).catch((error: unknown) => {
          // Still running after `waitMs`: answer its current view.
          if (isCyrnelError(error) && error.reason === 'wait_timeout') return undefined;
          throw error;
        });
        const aborted = new Promise<undefined>((resolve) =>
          signal.addEventListener('abort', () => resolve(undefined), { once: true }),
        );
        result = await Promise.race([waited, aborted]);
      } finally {
        clearInterval(timer);
      }
      // A finished run's result came with the wait; otherwise read where the process is now.
      const view = await viewOf(processes, result ?? (await processes.get(id)));
      if (onCall && view.toolCalls.length > seen) onCall(view.toolCalls.length);
      return view;
    },
    async killProcess(id) {
      const record = await processes.get(id);
      if (record.state !== 'idle') await processes.kill(id);
    },
  };
}
