/** A failed host call as it crosses into the sandbox (SPEC §9: message, status, code). */
export interface CallError {
  readonly message: string;
  /** The gate's HTTP status, or 502 for adapter failures. */
  readonly status: number;
  readonly code: string;
}

/** Normalise anything a binding rejected with; unknown failures count as upstream errors (502). */
export function toCallError(error: unknown): CallError {
  const e = error as { message?: unknown; status?: unknown; code?: unknown } | null | undefined;
  return {
    message: typeof e?.message === 'string' ? e.message : String(error),
    status: typeof e?.status === 'number' ? e.status : 502,
    code: typeof e?.code === 'string' ? e.code : 'upstream_error',
  };
}
