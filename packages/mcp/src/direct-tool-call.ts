import { isCyrnelError, type ProcessesApi } from '@cyrnel/core';
import type { JSONSchema } from '@cyrnel/sdk';
import {
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type ApprovalAsking, waitOrAsk } from './approval-flow';
import { type ApprovalRound, roundOf } from './approval-round';
import type { CatalogEntry } from './direct-catalog';
import type { QualifiedTool } from './direct-tool-names';
import { type DirectResultOptions, errorResult, finishedResult } from './direct-tool-result';
import type { ProcessView } from './process-view';
import { waitForProcess } from './wait-for-process';

/** The `ref` of a direct call's process: `GET /processes?ref=mcp-tools` lists them all. */
export const DIRECT_CALL_REF = 'mcp-tools';

/** What a direct call needs, for one caller. */
export interface DirectCallOptions extends DirectResultOptions {
  /** The caller's backend: its processes, and approvals when it may decide them. */
  readonly asking: ApprovalAsking;
  /** The caller's processes (scoped to its key and principal): the call's process is created here. */
  readonly processes: Pick<ProcessesApi, 'create'>;
  /** How long a call waits for its process, approvals included, before it is withdrawn. */
  readonly waitMs: number;
  /** How often finished tool calls are counted while waiting, for progress. */
  readonly progressPollMs: number;
  /** The base of approval links (the admin UI's page). */
  readonly serverUrl?: string | undefined;
  /** Aborted when the client goes away: the call's process is killed then. */
  readonly requestSignal?: AbortSignal | undefined;
}

/**
 * The program of one direct call: the tool called with the arguments (parsed from their JSON, so
 * a `__proto__` key stays a key) and its result as the output. A call from code and this one take
 * the same path from here on: the gate, the policies, the audit, the egress path.
 */
export function callCode(tool: QualifiedTool, args: Record<string, unknown>): string {
  const parameters = JSON.stringify(JSON.stringify(args));
  return `cyrnel.output({ result: await cyrnel.services.${tool.serviceId}.tools.${tool.toolId}.invoke(JSON.parse(${parameters})) });\n`;
}

/** The round a retry answers, or undefined for a first call; a state of another request is refused. */
function answeredRound(ctx: ServerContext, name: string, args: unknown): ApprovalRound | undefined {
  const state = ctx.mcpReq.requestState();
  if (state === undefined) return undefined;
  const round = roundOf(state, name, args);
  if (!round)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `the requestState belongs to another request than this ${name} call`,
    );
  return round;
}

/** Tell a client that shows progress where a person decides the approval the call waits for. */
function tellWaiting(ctx: ServerContext, view: ProcessView): void {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return;
  ctx.mcpReq
    .notify({
      method: 'notifications/progress',
      // Below 1 (the finished call): progress only grows.
      params: {
        progressToken: token,
        progress: 0.5,
        message: `waiting for a person to approve the call: ${view.approvalUrl}`,
      },
    })
    .catch(() => undefined);
}

/** The result of a call whose process ended. */
async function ended(options: DirectCallOptions, view: ProcessView, outputSchema: JSONSchema | undefined) {
  const record =
    view.exitState === 'success' ? undefined : await options.asking.backend.processes.get(view.processId);
  return finishedResult(view, record?.errorReason ?? null, outputSchema, options);
}

/**
 * The call's wait ran out (or the client went away): its process is killed, so the call is never
 * made after the client was answered; an approval it waited for goes with it. When the process
 * ended meanwhile, its result is answered after all.
 */
async function withdraw(
  options: DirectCallOptions,
  ctx: ServerContext,
  view: ProcessView,
  outputSchema: JSONSchema | undefined,
): Promise<CallToolResult> {
  const { backend } = options.asking;
  await backend.processes.kill(view.processId).catch(() => undefined);
  const after = await waitForProcess(backend, view.processId, ctx, {
    waitMs: 5_000,
    killOnCancel: false,
    progressPollMs: options.progressPollMs,
    serverUrl: options.serverUrl,
  });
  if (after.state === 'idle' && after.exitState === 'success') return ended(options, after, outputSchema);
  const seconds = Math.round(options.waitMs / 1000);
  if (view.state === 'waiting')
    return errorResult(
      'approval_expired',
      `nobody decided approval ${view.approvalId} within the call's ${seconds} s: the call was withdrawn and nothing was sent`,
      view.processId,
      `\nA person approves at ${view.approvalUrl} while a call waits; call the tool again, then approve it.`,
    );
  return errorResult(
    'wait_timeout',
    `the call did not end within ${seconds} s: it was cancelled`,
    view.processId,
  );
}

/**
 * Make one direct call as the caller: a process of one tool call is created under the caller's
 * key and principal (`ref` {@link DIRECT_CALL_REF}), so the key's scope and policy, approvals,
 * the audit record, the egress path and the caller's connections apply as they do to code. The
 * call waits for it up to `waitMs`; an approval it meets is asked through the client when the
 * caller may decide and the client shows forms (an input-required result, answered by the same
 * call sent again), else waited through while a person decides in the admin UI (a progress
 * notification carries the link). A call still waiting when the wait runs out is withdrawn.
 *
 * @example
 * ```ts
 * const result = await callDirectTool(options, entry, listed.outputSchema, { path: { id: 7 } }, ctx);
 * ```
 */
export async function callDirectTool(
  options: DirectCallOptions,
  entry: CatalogEntry,
  outputSchema: JSONSchema | undefined,
  args: Record<string, unknown>,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  let round = answeredRound(ctx, entry.name, args);
  let processId = round?.processId;
  if (processId === undefined) {
    try {
      processId = (await options.processes.create({ code: callCode(entry, args), ref: DIRECT_CALL_REF })).id;
    } catch (error) {
      // Refused before anything ran (too many processes, a quota, parameters too large): no audit to point at.
      if (isCyrnelError(error)) return errorResult(error.reason, error.message, undefined);
      throw error;
    }
  }
  const wait = {
    killOnCancel: true,
    requestSignal: options.requestSignal,
    progressPollMs: options.progressPollMs,
    serverUrl: options.serverUrl,
  };
  const until = performance.now() + options.waitMs;
  let told: string | null = null;
  for (;;) {
    const waitMs = Math.max(0, Math.ceil(until - performance.now()));
    const step = await waitOrAsk(options.asking, ctx, {
      tool: entry.name,
      args,
      processId,
      answering: round,
      // A person decides elsewhere when none can be asked here: wait through the approval.
      waitThrough: true,
      wait: { ...wait, waitMs },
    });
    round = undefined;
    if (isInputRequiredResult(step)) return step;
    const view = step.structuredContent as unknown as ProcessView;
    if (view.state === 'idle') return ended(options, view, outputSchema);
    const gone = ctx.mcpReq.signal.aborted || options.requestSignal?.aborted === true;
    if (gone || waitMs === 0 || performance.now() >= until) return withdraw(options, ctx, view, outputSchema);
    if (view.approvalId !== null && view.approvalId !== told) {
      told = view.approvalId;
      tellWaiting(ctx, view);
    }
  }
}
