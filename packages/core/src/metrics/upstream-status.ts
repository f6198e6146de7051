import { isPlainObject } from '@cyrnel/sdk';

/** The statuses of answers handed on as JSON text, which carry them no more. */
const statuses = new WeakMap<object, number>();

/** An HTTP status code: a whole number from 100 to 599. */
function isHttpStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;
}

/**
 * The upstream HTTP status of a tool's answer: the `status` of a `{ status, … }` result (what the
 * OpenAPI adapter answers, 4xx and 5xx included), or the one remembered with
 * {@link withUpstreamStatus} for an answer passed on as JSON text; null when there is none.
 *
 * @example
 * ```ts
 * upstreamStatus({ status: 404, headers: {}, body: null }); // 404
 * upstreamStatus('pong'); // null
 * ```
 */
export function upstreamStatus(result: unknown): number | null {
  if (isPlainObject(result)) return isHttpStatus(result.status) ? result.status : null;
  if (typeof result === 'object' && result !== null) return statuses.get(result) ?? null;
  return null;
}

/**
 * Remember `status` with `answer` (a `JsonText` made from the answer that had it), for
 * {@link upstreamStatus}; answers `answer`.
 */
export function withUpstreamStatus<T extends object>(answer: T, status: number | null | undefined): T {
  if (isHttpStatus(status)) statuses.set(answer, status);
  return answer;
}
