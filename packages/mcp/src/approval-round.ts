import { createHash, randomBytes } from 'node:crypto';
import { createRequestStateCodec, type RequestStateCodec } from '@modelcontextprotocol/server';

/**
 * What an approval asked through the client carries to the retry that answers it (the
 * `requestState` of a multi round-trip result): which run, which approval, which round, and
 * which request asked.
 */
export interface ApprovalRound {
  /** The tool that asked; its retry alone takes the state back. */
  readonly tool: string;
  /** SHA-256 of the arguments of the request that asked: a retry must repeat them. */
  readonly request: string;
  readonly processId: number;
  readonly approvalId: string;
  /** How many forms this call has asked so far. */
  readonly round: number;
}

/**
 * How long a round's state is taken back: a person answers the form before the client retries,
 * so it lasts as long as the approval can (ten minutes by default), and more.
 */
const ROUND_TTL_SECONDS = 3_600;

/**
 * The codec sealing rounds (HMAC-SHA256 of the SDK): the state travels through the client, which
 * could otherwise point a retry at another run or approval. Authorization never rests on it: the
 * retry's caller must still see the process and may decide only as its own key.
 *
 * @example
 * ```ts
 * const codec = approvalRoundCodec(randomBytes(32));
 * const state = await codec.mint({ tool: 'wait_process', request, processId: 7, approvalId, round: 1 });
 * ```
 */
export function approvalRoundCodec(key: Uint8Array | string | undefined): RequestStateCodec<ApprovalRound> {
  return createRequestStateCodec<ApprovalRound>({
    key: key ?? randomBytes(32),
    ttlSeconds: ROUND_TTL_SECONDS,
  });
}

/** The digest of a tool call's arguments, as a round remembers them. */
export const requestDigest = (args: unknown): string =>
  createHash('sha256').update(JSON.stringify(args)).digest('base64url');

/** A verified state as a round, or undefined when it is none of ours (another tool's, or a request's other than this one). */
export function roundOf(state: unknown, tool: string, args: unknown): ApprovalRound | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const round = state as Partial<ApprovalRound>;
  const ours =
    round.tool === tool &&
    round.request === requestDigest(args) &&
    Number.isSafeInteger(round.processId) &&
    typeof round.approvalId === 'string' &&
    Number.isSafeInteger(round.round);
  return ours ? (round as ApprovalRound) : undefined;
}
