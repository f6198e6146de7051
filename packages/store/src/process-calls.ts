import type { IndexedCall, ProcessResults } from '@cyrnel/core';
import type { CallDecision, ErrorCode, ErrorReason, ToolCallRecord } from '@cyrnel/sdk/api';
import type { Compilable, CompiledQuery, Kysely, Updateable } from 'kysely';
import type { Database } from './database';
import type { ProcessesTable } from './process-tables';
import { flag } from './sql-helpers';

/** Rows per multi-row insert of tool calls: 12 parameters each stays far below SQLite's limit. */
const CALLS_PER_INSERT = 500;

/** The rows of `process_tool_calls` (migration 0013: indexed, pending until their answer). */
export interface ProcessCalls {
  /** The calls of process `id` in call order; a pending one reads `ok: null`. */
  read(id: number): Promise<ToolCallRecord[]>;
  /**
   * Append calls at their start (pending), and write the rows of `ended` (earlier calls' answers)
   * over theirs: one statement for a batch.
   */
  open(id: number, calls: readonly IndexedCall[], ended?: readonly IndexedCall[]): Promise<void>;
  /** Write `calls` over the rows of their indexes, appending those without one (in `executor`'s transaction). */
  put(executor: Kysely<Database>, id: number, calls: readonly IndexedCall[]): Promise<void>;
  /** Write what a running process wrote so far: one update of its row. */
  checkpoint(id: number, results: Partial<ProcessResults>): Promise<void>;
}

const row = (id: number, { index, call }: IndexedCall, pending: boolean) => ({
  process_id: id,
  call_index: index,
  service_id: call.serviceId,
  tool_id: call.toolId,
  started_at: call.startedAt,
  duration_ms: Math.max(0, Math.round(call.durationMs)),
  ok: flag(call.ok === true),
  pending: flag(pending || call.ok === null),
  error_code: call.errorCode,
  error_reason: call.errorReason,
  decision: decisionText(call),
  result_bytes: call.resultBytes,
});

/** The `decision` column (migration 0016): JSON, null when the call has none. */
function decisionText(call: ToolCallRecord): string | null {
  return call.decision ? JSON.stringify(call.decision) : null;
}

/**
 * The tool call rows and checkpoints of the process store. The statements a run repeats (starts,
 * starts with the ends before them; one per number of rows up to {@link MAX_COMPILED_ROWS}) are
 * compiled once: building and compiling cost about a quarter of a write.
 */
export function createProcessCalls(db: Kysely<Database>): ProcessCalls {
  const compiledInserts = new Map<number, CompiledQuery>();
  const compiledUpserts = new Map<number, CompiledQuery>();
  /** Run the statement `build` makes for `rows`, compiled once per number of rows (kept in `cache`). */
  const runCompiled = async (
    cache: Map<number, CompiledQuery>,
    rows: readonly CallRow[],
    build: () => Compilable,
  ): Promise<void> => {
    let compiled = cache.get(rows.length);
    if (!compiled) {
      compiled = build().compile();
      cache.set(rows.length, compiled);
    }
    await db.executeQuery({ ...compiled, parameters: rows.flatMap((values) => Object.values(values)) });
  };

  return {
    async read(id) {
      const rows = await db
        .selectFrom('process_tool_calls')
        .select([
          'service_id',
          'tool_id',
          'started_at',
          'duration_ms',
          'ok',
          'pending',
          'error_code',
          'error_reason',
          'decision',
          'result_bytes',
        ])
        .where('process_id', '=', id)
        // Calls stored before migration 0013 have no index: their ids are in call order.
        .orderBy('call_index')
        .orderBy('id')
        .execute();
      return rows.map((stored) => ({
        serviceId: stored.service_id,
        toolId: stored.tool_id,
        startedAt: stored.started_at,
        durationMs: Number(stored.duration_ms),
        ok: Number(stored.pending) === 1 ? null : Number(stored.ok) === 1,
        errorCode: stored.error_code as ErrorCode | null,
        errorReason: stored.error_reason as ErrorReason | null,
        decision: stored.decision === null ? null : (JSON.parse(stored.decision) as CallDecision),
        resultBytes: stored.result_bytes === null ? null : Number(stored.result_bytes),
      }));
    },

    async open(id, calls, ended = []) {
      if (ended.length > 0) {
        const rows = [
          ...ended.map((call) => row(id, call, false)),
          ...calls.map((call) => row(id, call, true)),
        ];
        // A run of sequential calls writes one end and one start each time: compiled once per size.
        if (rows.length > MAX_COMPILED_ROWS) return upsert(db, rows);
        return runCompiled(compiledUpserts, rows, () => upsertQuery(db, rows));
      }
      // Starts alone (calls through the gate, parallel ones together): compiled once per size too.
      if (calls.length >= 1 && calls.length <= MAX_COMPILED_ROWS) {
        const rows = calls.map((call) => row(id, call, true));
        return runCompiled(compiledInserts, rows, () => db.insertInto('process_tool_calls').values(rows));
      }
      for (let i = 0; i < calls.length; i += CALLS_PER_INSERT) {
        const rows = calls.slice(i, i + CALLS_PER_INSERT).map((call) => row(id, call, true));
        await db.insertInto('process_tool_calls').values(rows).execute();
      }
    },

    async put(executor, id, calls) {
      await upsert(
        executor,
        calls.map((call) => row(id, call, false)),
      );
    },

    async checkpoint(id, results) {
      const columns: Updateable<ProcessesTable> = {};
      if (results.stdout !== undefined) columns.stdout = results.stdout;
      if (results.stderr !== undefined) columns.stderr = results.stderr;
      if (results.output !== undefined) columns.output = JSON.stringify(results.output);
      if (Object.keys(columns).length === 0) return;
      await db.updateTable('processes').set(columns).where('id', '=', id).execute();
    },
  };
}

/**
 * Most rows of an upsert whose compiled statement is kept (one per size, at most 64 statements of
 * a few KiB). A run of kept calls writes batches of tens of rows (what 20 ms of calls brings):
 * building and compiling each in kysely cost about a quarter of a row's write (on a real file,
 * batches of 9–38 rows: 12.4–13.2 µs of CPU a row kept up to 8 rows, 9.1–9.6 up to 64).
 */
const MAX_COMPILED_ROWS = 64;

type CallRow = ReturnType<typeof row>;

/** Insert `rows`, writing over the rows of the same process and index. */
function upsertQuery(executor: Kysely<Database>, rows: readonly CallRow[]) {
  return executor
    .insertInto('process_tool_calls')
    .values(rows)
    .onConflict((conflict) =>
      conflict.columns(['process_id', 'call_index']).doUpdateSet((eb) => ({
        duration_ms: eb.ref('excluded.duration_ms'),
        ok: eb.ref('excluded.ok'),
        pending: eb.ref('excluded.pending'),
        error_code: eb.ref('excluded.error_code'),
        error_reason: eb.ref('excluded.error_reason'),
        decision: eb.ref('excluded.decision'),
        result_bytes: eb.ref('excluded.result_bytes'),
      })),
    );
}

/** {@link upsertQuery} of `rows`, a statement per 500 rows. */
async function upsert(executor: Kysely<Database>, rows: readonly CallRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CALLS_PER_INSERT)
    await upsertQuery(executor, rows.slice(i, i + CALLS_PER_INSERT)).execute();
}
