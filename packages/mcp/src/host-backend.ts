import type { CyrnelHost, ProcessesApi } from '@cyrnel/core';
import { type DiscoveredService, isCyrnelError } from '@cyrnel/sdk';
import type { ProcessResult } from '@cyrnel/sdk/api';
import { callableServices } from './callable-services';
import { hostProcessEvents } from './host-events';
import { agentOperations, type McpBackend } from './mcp-backend';
import { sleep } from './sleep';

/** Options of {@link createHostBackend}. */
export interface HostBackendOptions {
  readonly host: CyrnelHost;
  /** The processes API scoped to the caller (`scopeProcesses` of `@cyrnel/core`); default the host's. */
  readonly processes?: ProcessesApi;
  /**
   * Set when the caller may decide approvals (an admin or an approver key; never an agent key,
   * which may not approve its own calls): decisions are recorded as made by `keyId` (null: the
   * bootstrap key, an open server, or the embedded host's own user).
   */
  readonly approver?: { readonly keyId: string | null };
  /** How often a run still waiting for an approval already reported is looked at. Default 250 ms. */
  readonly pollMs?: number;
  /**
   * The caller's key id, where the caller may read other keys' processes (an admin): its tasks
   * are only the processes this key created. Default: every process `processes` shows.
   */
  readonly owner?: string | null;
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

/** Wait once on the run: its result when it ends or starts waiting; undefined when the wait runs out or is aborted. */
async function waitOnce(
  processes: ProcessesApi,
  id: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ProcessResult | undefined> {
  const waited = processes
    .wait(id, { timeoutMs: Math.max(1, Math.ceil(timeoutMs)) })
    .catch((error: unknown) => {
      if (isCyrnelError(error) && error.reason === 'wait_timeout') return undefined;
      throw error;
    });
  let stop = () => {};
  const aborted = new Promise<undefined>((resolve) => {
    stop = () => resolve(undefined);
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([waited, aborted]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/**
 * Wait on the run itself: its result as soon as it ends or waits for a new approval, its record
 * when the wait runs out or is aborted. The host answers a wait at once while the run waits, so a
 * run still waiting for the approval already reported is looked at again every `pollMs`.
 */
function settleOn(processes: ProcessesApi, pollMs: number): McpBackend['processes']['settle'] {
  return async (id, { timeoutMs, signal, reportedApproval }) => {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const result = await waitOnce(processes, id, until - performance.now(), signal);
      const left = until - performance.now();
      if (!result) return processes.get(id);
      const waitsAsBefore = result.state === 'waiting' && result.approvalId === reportedApproval;
      if (!waitsAsBefore || signal.aborted || left <= 0) return result;
      await sleep(Math.min(pollMs, left), signal);
    }
  };
}

/** The host's approvals, decided as `keyId`. */
function approvalsAs(host: CyrnelHost, keyId: string | null): NonNullable<McpBackend['approvals']> {
  return {
    get: (id) => host.approvals.get(id),
    decide: (id, body) => host.approvals.decide(id, body, { keyId }),
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
 * // A caller who may decide approvals: asked through the client when it can answer elicitations.
 * const approving = createHostBackend({ host, approver: { keyId: actor.keyId } });
 * const server = await createCyrnelMcpServer(backend, { version: '0.1.0' });
 * ```
 */
export function createHostBackend(options: HostBackendOptions): McpBackend {
  const { host, approver, owner } = options;
  const processes = options.processes ?? host.processes;
  const shared = agentOperations(host, processes);
  return {
    ...shared,
    processes: {
      ...shared.processes,
      calls: (id) => processes.calls(id),
      check: (code) => processes.check({ code, check: true }),
      settle: settleOn(processes, options.pollMs ?? 250),
      events: (id, signal) => hostProcessEvents(processes, id, signal),
    },
    services: () => servicesOf(host),
    catalogVersion: () => host.catalogVersion(),
    ...(approver ? { approvals: approvalsAs(host, approver.keyId) } : {}),
    ...(owner === undefined ? {} : { owner }),
  };
}
