import type { Generated } from 'kysely';

/** Row of `processes` (migration 0002): timestamps are ISO strings, JSON columns are text. */
export interface ProcessesTable {
  id: Generated<number>;
  ref: string | null;
  /** Added by migration 0003: the API key that created the process. */
  key_id: Generated<string | null>;
  code: string;
  state: string;
  exit_state: string | null;
  error: string | null;
  /** Added by migration 0006: the stable reason of the end (`process_timeout`, ...), or null. */
  error_reason: Generated<string | null>;
  timeout_ms: number | null;
  env_config: string;
  output: string;
  stdout: string;
  stderr: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** Added by migration 0009: the host that runs (or last ran) it, and since when. */
  owner_host: Generated<string | null>;
  claimed_at: Generated<string | null>;
  /** Added by migration 0010: a kill asked for on a host that does not run it. */
  kill_requested_at: Generated<string | null>;
  /** Added by migration 0013: why that kill was asked (`key_revoked`), null for a plain kill. */
  kill_reason: Generated<string | null>;
  /** Added by migration 0011: the modules the run needs, as `,id,id,` (empty: none). */
  needs: Generated<string>;
  /** Added by migration 0016: JSON array of the data-flow labels the run accumulated. */
  labels: Generated<string>;
  /** Added by migration 0016: the approval the run waits for (state `waiting`), or null. */
  approval_id: Generated<string | null>;
  /** Added by migration 0018: whose connections its calls use (the key's principal), or null. */
  principal_id: Generated<string | null>;
  /** Added by migration 0018: JSON `{ serviceId: connectionName }` the create request named. */
  connections: Generated<string>;
  /** Added by migration 0023: the last run's metrics (`ProcessRecord.metrics`), null until it ends. */
  metric_tool_calls: Generated<number | null>;
  metric_tool_result_bytes: Generated<number | null>;
  metric_returned_bytes: Generated<number | null>;
  metric_wall_ms: Generated<number | null>;
  metric_cpu_ms: Generated<number | null>;
  /** Added by migration 0022: the trace context of the request that queued it (the core's text), or null. */
  trace_context: Generated<string | null>;
}

/** Row of `hosts` (migration 0009): one per host sharing the database. */
export interface HostsTable {
  id: string;
  started_at: string;
  heartbeat_at: string;
  /** Added by migration 0011: the modules this host has, JSON `{ id: status }`. */
  modules: Generated<string>;
}

/** Row of `process_tool_calls` (migration 0002): `ok` is 0 or 1. */
export interface ProcessToolCallsTable {
  id: Generated<number>;
  process_id: number;
  service_id: string;
  tool_id: string;
  started_at: string;
  duration_ms: number;
  ok: number;
  error_code: string | null;
  /** Added by migration 0006: the stable reason of a failed call, or null. */
  error_reason: Generated<string | null>;
  /** Added by migration 0013: the call's position among its run's calls (null: stored before). */
  call_index: Generated<number | null>;
  /** Added by migration 0013: 1 from the call's start until its answer (after a crash: interrupted). */
  pending: Generated<number>;
  /** Added by migration 0016: JSON of how the policies decided the call (null: recorded before). */
  decision: Generated<string | null>;
  /** Added by migration 0023: bytes of the answer delivered to the program (null: in flight, or recorded before). */
  result_bytes: Generated<number | null>;
}

/** The tables of the process store. */
export interface ProcessTables {
  processes: ProcessesTable;
  process_tool_calls: ProcessToolCallsTable;
  hosts: HostsTable;
}
