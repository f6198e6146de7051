import type { ErrorReason } from '@cyrnel/sdk';
import type { ProcessRecord, ProcessSummary, ToolCallRecord } from '@cyrnel/sdk/api';
import { serviceUsageOf } from '../efficiency/memory-service-usage';
import { createMemoryKeyUsage } from './memory-key-usage';
import type {
  HostRecord,
  IndexedCall,
  KillRequest,
  ProcessChange,
  ProcessResults,
  ProcessStorage,
} from './process-storage';

/** A change as the record takes it, and the owner and trace context it names (if any). */
function split(change: ProcessChange): {
  fields: Omit<ProcessChange, 'ownerHost' | 'traceContext'>;
  owner?: string | null;
  traceContext?: string | null;
} {
  const { ownerHost, traceContext, ...fields } = change;
  return {
    fields,
    ...(ownerHost === undefined ? {} : { owner: ownerHost }),
    ...(traceContext === undefined ? {} : { traceContext }),
  };
}

interface MemoryRow {
  record: ProcessRecord;
  readonly code: string;
  results: ProcessResults;
  /** By index; a call appended at its start has `ok: null` until it is completed. */
  calls: ToolCallRecord[];
  /** The host that runs it (not part of the record). */
  owner: string | null;
  /** A kill asked for on another host, and why (null: an ordinary kill). */
  killRequested?: boolean;
  killReason?: ErrorReason | null;
  /** The modules it needs (a host lacking one does not claim it). */
  needs: readonly string[];
  /** The trace context stored with it (not part of the record). */
  traceContext: string | null;
}

const emptyResults = (): ProcessResults => ({ output: {}, stdout: '', stderr: '' });

/** Write `calls` over the rows of their indexes (appending those without one). */
function putCalls(row: MemoryRow, calls: readonly IndexedCall[]): void {
  for (const { index, call } of calls) row.calls[index] = { ...call };
}

/**
 * A {@link ProcessStorage} in memory: nothing survives the process. For embedding the core
 * without a database and for the core's own tests; servers use `@cyrnel/store`.
 */
export function createMemoryProcessStorage(): ProcessStorage {
  const rows = new Map<number, MemoryRow>();
  const hosts = new Map<string, HostRecord>();
  const usage = createMemoryKeyUsage();
  const unclaimed = (row: MemoryRow) => row.record.state === 'queued' && row.owner === null;
  let nextId = 1;
  const apply = (row: MemoryRow, change: ProcessChange) => {
    const { fields, owner, traceContext } = split(change);
    if (traceContext !== undefined) row.traceContext = traceContext;
    const { labels, ...rest } = fields;
    row.record = { ...row.record, ...rest, ...(labels === undefined ? {} : { labels: [...labels] }) };
    if (owner !== undefined) {
      row.owner = owner;
      row.record = { ...row.record, hostId: owner };
    }
  };
  const copy = (record: ProcessRecord): ProcessRecord => ({
    ...record,
    envConfig: { ...record.envConfig },
    connections: { ...record.connections },
    labels: [...record.labels],
    metrics: record.metrics && { ...record.metrics },
  });

  return {
    async insert(process) {
      const { code, ref, keyId, state, timeoutMs, envConfig, createdAt, ownerHost, needs } = process;
      const id = nextId++;
      const record: ProcessRecord = {
        id,
        ref,
        keyId,
        principalId: process.principalId ?? null,
        state,
        timeoutMs,
        envConfig: { ...envConfig },
        connections: { ...process.connections },
        exitState: null,
        error: null,
        errorReason: null,
        createdAt,
        updatedAt: createdAt,
        startedAt: null,
        completedAt: null,
        hostId: ownerHost ?? null,
        labels: [],
        approvalId: null,
        metrics: null,
      };
      const row: MemoryRow = {
        record,
        code,
        results: emptyResults(),
        calls: [],
        owner: ownerHost ?? null,
        needs: [...(needs ?? [])],
        traceContext: process.traceContext ?? null,
      };
      rows.set(id, row);
      usage.measure(row);
      return id;
    },
    async get(id) {
      const row = rows.get(id);
      return row && copy(row.record);
    },
    code: async (id) => rows.get(id)?.code,
    results: async (id) => rows.get(id)?.results,
    calls: async (id) => (rows.get(id)?.calls ?? []).filter(Boolean).map((call) => ({ ...call })),
    async list({ state, exitState, ref, keyId, beforeId, limit }) {
      const page: ProcessSummary[] = [];
      const ids = [...rows.keys()].sort((a, b) => b - a);
      for (const id of ids) {
        const { record } = rows.get(id) as MemoryRow;
        if (beforeId !== undefined && id >= beforeId) continue;
        if (state !== undefined && record.state !== state) continue;
        if (exitState !== undefined && record.exitState !== exitState) continue;
        if (ref !== undefined && record.ref !== ref) continue;
        if (keyId !== undefined && record.keyId !== keyId) continue;
        const { envConfig: _envConfig, connections: _connections, ...summary } = record;
        page.push({
          ...summary,
          labels: [...summary.labels],
          metrics: summary.metrics && { ...summary.metrics },
        });
        if (page.length === limit) break;
      }
      return page;
    },
    async update(id, change) {
      const row = rows.get(id);
      if (row) apply(row, change);
    },
    async finish(id, change, results, calls) {
      const row = rows.get(id);
      if (!row) return;
      apply(row, change);
      row.results = { ...results, output: { ...results.output } };
      putCalls(row, calls);
      usage.measure(row);
    },
    async openCalls(id, calls, ended = []) {
      const row = rows.get(id);
      if (!row) return;
      putCalls(row, ended);
      putCalls(row, calls);
      usage.measure(row);
    },
    async checkpoint(id, results) {
      const row = rows.get(id);
      if (!row) return;
      row.results = {
        ...row.results,
        ...results,
        ...(results.output ? { output: { ...results.output } } : {}),
      };
      usage.measure(row);
    },
    async reset(id, change) {
      const row = rows.get(id);
      if (!row) return;
      apply(row, { ...change, metrics: null });
      row.results = emptyResults();
      row.calls = [];
      row.killRequested = false;
      usage.measure(row);
    },
    async delete(id) {
      const row = rows.get(id);
      if (row) usage.forget(row);
      return rows.delete(id);
    },
    serviceStats: async (serviceId) => serviceUsageOf(rows.values(), serviceId),
    keyUsage: async (keyId) => usage.usage(keyId),
    pruneIdle: async (rule) => usage.prune(rows, rule),
    async failInterrupted(error, at, errorReason, scope) {
      let count = 0;
      const gone = (owner: string) => {
        if (owner === scope?.hostId) return true;
        const beat = hosts.get(owner)?.heartbeatAt;
        return beat === undefined || (scope !== undefined && beat < scope.staleBefore);
      };
      const leftover = (row: MemoryRow) => {
        if (!scope) return true;
        // Queued work without an owner is the shared queue's, not a leftover.
        if (row.owner === null) return scope.unowned === true && !unclaimed(row);
        return gone(row.owner);
      };
      for (const row of rows.values()) {
        if (row.record.state === 'idle' || !leftover(row)) continue;
        row.record = {
          ...row.record,
          state: 'idle',
          exitState: 'failed',
          error,
          errorReason,
          completedAt: at,
          updatedAt: at,
          approvalId: null,
        };
        count++;
      }
      return count;
    },
    async heartbeat(hostId, at, modules) {
      hosts.set(hostId, {
        id: hostId,
        heartbeatAt: at,
        modules: modules ?? hosts.get(hostId)?.modules ?? {},
      });
    },
    async hosts(since) {
      return [...hosts.values()].filter((host) => host.heartbeatAt >= since).map((host) => ({ ...host }));
    },
    async claim(hostId, at, { limit, lacking }) {
      const claimed = [];
      const ids = [...rows.keys()].sort((a, b) => a - b);
      for (const id of ids) {
        if (claimed.length >= limit) break;
        const row = rows.get(id) as MemoryRow;
        if (!unclaimed(row) || row.needs.some((need) => lacking.includes(need))) continue;
        row.owner = hostId;
        row.record = { ...row.record, hostId, updatedAt: at };
        claimed.push({ record: copy(row.record), code: row.code, traceContext: row.traceContext });
      }
      return claimed;
    },
    async countUnclaimed(keyId) {
      let count = 0;
      for (const row of rows.values())
        if (unclaimed(row) && (keyId === undefined || row.record.keyId === keyId)) count++;
      return count;
    },
    async updateUnclaimed(id, change) {
      const row = rows.get(id);
      if (!row || !unclaimed(row)) return false;
      apply(row, change);
      return true;
    },
    async removeHost(hostId) {
      hosts.delete(hostId);
    },
    async owner(id) {
      const row = rows.get(id);
      if (!row) return undefined;
      return {
        hostId: row.owner,
        heartbeatAt: row.owner === null ? null : (hosts.get(row.owner)?.heartbeatAt ?? null),
      };
    },
    async requestKill(id, _at, reason) {
      const row = rows.get(id);
      if (row && row.record.state !== 'idle') {
        row.killRequested = true;
        row.killReason = reason ?? null;
      }
    },
    async takeKillRequests(hostId) {
      const requests: KillRequest[] = [];
      for (const [id, row] of rows) {
        if (!row.killRequested || row.owner !== hostId) continue;
        row.killRequested = false;
        if (row.record.state !== 'idle') requests.push({ id, reason: row.killReason ?? null });
      }
      return requests;
    },
  };
}
