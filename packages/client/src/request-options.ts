/** Per-call options every client method accepts as its last argument. */
export interface RequestOptions {
  /** Aborts the call; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call; `0` means no deadline. */
  timeoutMs?: number;
}
