import type { CyrnelHost, ProcessesApi } from '@cyrnel/core';
import { isCyrnelError } from '@cyrnel/sdk';
import type { ProcessRecord } from '@cyrnel/sdk/api';
import type { McpBackend, ProcessView } from './backend';

/** Options of {@link createHostBackend}. */
export interface HostBackendOptions {
  readonly host: CyrnelHost;
  /** The processes API scoped to the caller (`scopeProcesses` of `@cyrnel/core`); default the host's. */
  readonly processes?: ProcessesApi;
  /** How often finished tool calls are counted while waiting, for progress. Default 100 ms. */
  readonly pollMs?: number;
}

/** Split `service.tool` names into known declarations and unknown names. */
async function typesOf(
  host: CyrnelHost,
  names: readonly string[],
): Promise<{ declarations: string; unknown: string[] }> {
  const unknown: string[] = [];
  const known: string[] = [];
  for (const name of names) {
    const [serviceId, toolId, ...rest] = name.split('.');
    if (!serviceId || !toolId || rest.length > 0) {
      unknown.push(name);
      continue;
    }
    const found = await host.tools.get(serviceId, toolId).then(
      (tool) => tool.effectivelyEnabled,
      () => false,
    );
    (found ? known : unknown).push(name);
  }
  const declarations = known.length > 0 ? await host.environment.types({ tools: known }) : '';
  return { declarations, unknown };
}

/** The view of a process: record plus results once idle, live tool calls while it runs. */
export async function viewOf(processes: ProcessesApi, record: ProcessRecord): Promise<ProcessView> {
  const idle = record.state === 'idle';
  const [output, stdout, stderr] = idle
    ? await Promise.all([
        processes.output(record.id),
        processes.stdout(record.id),
        processes.stderr(record.id),
      ])
    : [{}, '', ''];
  const calls = await processes.calls(record.id);
  return {
    processId: record.id,
    state: record.state,
    exitState: record.exitState,
    error: record.error,
    output: output as Record<string, unknown>,
    stdout,
    stderr,
    toolCalls: calls.map(({ serviceId, toolId, ok, durationMs, errorReason }) => ({
      serviceId,
      toolId,
      ok,
      durationMs,
      errorReason,
    })),
  };
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
      return page.items.map((tool) => ({
        serviceId: tool.serviceId,
        toolId: tool.id,
        name: tool.name,
        description: tool.description,
      }));
    },
    toolTypes: (tools) => typesOf(host, tools),
    async services() {
      const page = await host.services.list({ enabled: true, failed: false, limit: 500 });
      return page.items
        .filter((service) => service.effectivelyEnabled)
        .map(({ id, name, description, toolCount }) => ({ id, name, description, toolCount }));
    },
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
      try {
        const waited = processes.wait(id, { timeoutMs: waitMs }).catch((error: unknown) => {
          // Still running after `waitMs`: answer its current view.
          if (isCyrnelError(error) && error.reason === 'wait_timeout') return undefined;
          throw error;
        });
        const aborted = new Promise<undefined>((resolve) =>
          signal.addEventListener('abort', () => resolve(undefined), { once: true }),
        );
        await Promise.race([waited, aborted]);
      } finally {
        clearInterval(timer);
      }
      const view = await viewOf(processes, await processes.get(id));
      if (onCall && view.toolCalls.length > seen) onCall(view.toolCalls.length);
      return view;
    },
    async killProcess(id) {
      const record = await processes.get(id);
      if (record.state !== 'idle') await processes.kill(id);
    },
  };
}
