import { isCyrnelError } from '@cyrnel/sdk';
import type { DecideApprovalRequest } from '@cyrnel/sdk/api';
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { APPROVAL_INPUT, answersForms, approvalRequest, decisionOf } from './approval-elicitation';
import { type ApprovalRound, requestDigest } from './approval-round';
import type { McpBackend } from './mcp-backend';
import { viewResult } from './process-view';
import { type WaitForProcessOptions, waitForProcess } from './wait-for-process';

/**
 * Forms asked in one tool call at most: then the call answers that the run waits, and a later
 * `wait_process` asks again. Below the rounds the SDK allows (8 on a 2025 connection, where it
 * sends the forms itself; 10 for a client retrying).
 */
const MAX_ROUNDS = 5;

/** What asking a person through the client needs, built once per server instance. */
export interface ApprovalAsking {
  readonly backend: McpBackend;
  readonly codec: RequestStateCodec<ApprovalRound>;
  /** The client's capabilities for this request (its envelope's, or those it declared when it connected). */
  capabilities(ctx: ServerContext): ClientCapabilities | undefined;
  /** Text results are cut beyond this many characters. */
  readonly maxTextChars: number;
}

/** One tool call that waits for a run, and may ask a person to decide what the run waits for. */
export interface WaitOrAskInput {
  /** The tool and its arguments, as a retry must repeat them. */
  readonly tool: string;
  readonly args: unknown;
  readonly processId: number;
  /** The round this call answers (a retry carrying a person's decision), if any. */
  readonly answering?: ApprovalRound | undefined;
  /**
   * Wait through the approval the run waits for now, when no one can be asked here (`wait_process`):
   * the call ends when the run goes on and ends, waits for another approval, or the wait runs out.
   */
  readonly waitThrough?: boolean;
  readonly wait: WaitForProcessOptions;
}

/** Whether a person can be asked through this request: the caller may decide, the client answers forms. */
export const canAsk = (asking: ApprovalAsking, ctx: ServerContext): boolean =>
  asking.backend.approvals !== undefined && answersForms(asking.capabilities(ctx));

/** The approval the run waits for now, if any. */
async function currentApproval(backend: McpBackend, processId: number): Promise<string | undefined> {
  const record = await backend.processes.get(processId);
  return record.state === 'waiting' ? (record.approvalId ?? undefined) : undefined;
}

/**
 * Decide what a retry answers, as the caller: the process must still be the caller's, the
 * approval the process's. Answers the approval now decided (or decided meanwhile by someone
 * else), or undefined when the retry carries no answer (the form is asked again).
 */
async function decideAnswer(
  backend: McpBackend,
  ctx: ServerContext,
  round: ApprovalRound,
): Promise<string | undefined> {
  const { approvals } = backend;
  if (!approvals) throw new Error('this key may not decide approvals');
  const decision = decisionOf(ctx.mcpReq.inputResponses);
  if (!decision) return undefined;
  await backend.processes.get(round.processId);
  await decideApproval(backend, round.processId, round.approvalId, decision);
  return round.approvalId;
}

/**
 * Decide an approval a process waits for, as the caller: the approval must be one of that
 * process's. One decided meanwhile (in the admin UI) or expired is left as it is: the run goes on
 * as that decision says.
 */
export async function decideApproval(
  backend: McpBackend,
  processId: number,
  approvalId: string,
  decision: DecideApprovalRequest,
): Promise<void> {
  const { approvals } = backend;
  if (!approvals) throw new Error('this key may not decide approvals');
  const detail = await approvals.get(approvalId);
  if (detail.processId !== processId)
    throw new Error(`approval ${approvalId} is not one process ${processId} waits for`);
  try {
    await approvals.decide(approvalId, decision);
  } catch (error) {
    if (!(isCyrnelError(error) && error.reason === 'approval_decided')) throw error;
  }
}

/**
 * Wait for a run and answer its view; when it waits for a person's approval and the caller may
 * decide it (an admin or an approver key) and the client answers forms, answer instead an
 * input-required result: a form asking the person to approve or deny the call, and the sealed
 * round. The client (2026-07-28), or the SDK on a 2025 connection, asks the person and sends the
 * same call again with the answer; that retry decides the approval as the caller and waits on.
 *
 * @example
 * ```ts
 * return waitOrAsk(asking, ctx, { tool: 'wait_process', args, processId, wait: { waitMs, killOnCancel: false, progressPollMs } });
 * ```
 */
export async function waitOrAsk(
  asking: ApprovalAsking,
  ctx: ServerContext,
  input: WaitOrAskInput,
): Promise<CallToolResult | InputRequiredResult> {
  const { backend } = asking;
  const { processId, answering } = input;
  const rounds = answering?.round ?? 0;
  let reported: string | undefined;
  if (answering) reported = await decideAnswer(backend, ctx, answering);
  else if (input.waitThrough && !canAsk(asking, ctx)) reported = await currentApproval(backend, processId);
  const until = performance.now() + input.wait.waitMs;
  for (;;) {
    const waitMs = Math.max(0, Math.ceil(until - performance.now()));
    const view = await waitForProcess(backend, processId, ctx, {
      ...input.wait,
      waitMs,
      reportedApproval: reported,
    });
    const { approvals } = backend;
    const askable =
      approvals !== undefined && view.approvalId !== null && rounds < MAX_ROUNDS && canAsk(asking, ctx);
    if (!askable) return viewResult(view, asking.maxTextChars);
    const detail = await approvals.get(view.approvalId);
    if (detail.state === 'pending') {
      const round: ApprovalRound = {
        tool: input.tool,
        request: requestDigest(input.args),
        processId,
        approvalId: detail.id,
        round: rounds + 1,
      };
      return inputRequired({
        inputRequests: { [APPROVAL_INPUT]: approvalRequest(detail) },
        requestState: await asking.codec.mint(round),
      });
    }
    // Decided meanwhile (by someone else, or it expired): wait for the run to take it up, once.
    if (reported === view.approvalId || waitMs === 0) return viewResult(view, asking.maxTextChars);
    reported = view.approvalId;
  }
}
