import type { CyrnelHost, ProcessesApi } from '@cyrnel/core';
import { type DiscoveredService, isCyrnelError } from '@cyrnel/sdk';
import type { ProcessResult } from '@cyrnel/sdk/api';
import { callableServices } from './callable-services';
import { agentOperations, type McpBackend } from './mcp-backend';

/** Options of {@link createHostBackend}. */
export interface HostBackendOptions {
  readonly host: CyrnelHost;
  /** The processes API scoped to the caller (`scopeProcesses` of `@cyrnel/core`); default the host's. */
  readonly processes?: ProcessesApi;
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

/** Wait on the run itself: its result as soon as it ends, its record when the wait runs out or is aborted. */
function settleOn(processes: ProcessesApi): McpBackend['processes']['settle'] {
  return async (id, { timeoutMs, signal }) => {
    const waited = processes.wait(id, { timeoutMs }).catch((error: unknown) => {
      if (isCyrnelError(error) && error.reason === 'wait_timeout') return undefined;
      throw error;
    });
    let stop = () => {};
    const aborted = new Promise<undefined>((resolve) => {
      stop = () => resolve(undefined);
      signal.addEventListener('abort', stop, { once: true });
    });
    let result: ProcessResult | undefined;
    try {
      result = await Promise.race([waited, aborted]);
    } finally {
      signal.removeEventListener('abort', stop);
    }
    return result ?? processes.get(id);
  };
}

/**
 * The MCP backend over the in-process core host (what `/mcp` on the server and the embedded stdio
 * bridge use): the host's own APIs, the caller's processes, services listed once per catalog
 * version.
 *
 * @example
 * ```ts
 * const backend = createHostBackend({ host, processes: scopeProcesses(host.processes, actor) });
 * const server = await createCyrnelMcpServer(backend, { version: '0.1.0' });
 * ```
 */
export function createHostBackend(options: HostBackendOptions): McpBackend {
  const { host } = options;
  const processes = options.processes ?? host.processes;
  const shared = agentOperations(host, processes);
  return {
    ...shared,
    processes: { ...shared.processes, calls: (id) => processes.calls(id), settle: settleOn(processes) },
    services: () => servicesOf(host),
  };
}
