import type { ErrorReason, ExecutionExitState, ModuleLogger } from '@cyrnel/sdk';

/** A run of this host ended ({@link HostMetrics.runEnded}). */
export interface RunEndedEvent {
  readonly exitState: ExecutionExitState;
  /**
   * Why a run that did not end by itself ended (`process_timeout`, `process_killed`,
   * `sandbox_crashed`, …); null for a success or a failure of its own code.
   */
  readonly errorReason: ErrorReason | null;
  /** Milliseconds from `running` to its end; null when it never ran (killed while queued). */
  readonly runMs: number | null;
  /** Milliseconds from its dispatch to `running` (the wait for a sandbox); null when it never ran. */
  readonly queuedMs: number | null;
}

/** A tool call of a run was answered, failed or was refused ({@link HostMetrics.toolCallEnded}). */
export interface ToolCallEndedEvent {
  /**
   * The service and tool as the code named them. Only a call that `reached` its adapter names an
   * installed service and tool; a refused call's ids are whatever the code wrote (hostile: never
   * make them labels of unbounded metrics).
   */
  readonly serviceId: string;
  readonly toolId: string;
  /**
   * The call got past the gate and the policies to its adapter: it succeeded, or failed with an
   * `upstream_error` (the upstream refused, timed out, could not be reached, or its answer was too
   * large). False for a call refused before anything was sent (unknown or disabled tool, invalid
   * parameters, blocked, denied or expired approval, ...).
   */
  readonly reached: boolean;
  readonly ok: boolean;
  /** The reason of a failure, null when it succeeded (or failed without a known reason). */
  readonly errorReason: ErrorReason | null;
  /**
   * The upstream's HTTP status, when the adapter answered one (the OpenAPI adapter's results are
   * `{ status, headers, body }`, 4xx and 5xx included); null otherwise (a call that threw, an
   * adapter without HTTP statuses).
   */
  readonly status: number | null;
  /** Milliseconds from its start to its answer. */
  readonly durationMs: number;
}

/**
 * What the host reports while it works, for an embedder's metrics (`@cyrnel/server` turns these
 * into Prometheus histograms and counters). Called on the host's thread, synchronously: keep each
 * call cheap. A method that throws is ignored.
 *
 * @example
 * ```ts
 * const host = await createHost({ ...options, metrics: {
 *   runEnded: (event) => runs.labels(event.exitState).inc(),
 *   toolCallEnded: (event) => calls.labels(event.reached ? event.serviceId : 'refused').inc(),
 * } });
 * ```
 */
export interface HostMetrics {
  /** A run of this host ended (its exit state is known; its rows may still be being written). */
  runEnded(event: RunEndedEvent): void;
  /** A tool call of a run of this host ended, on either path (the gate or the egress gateway). */
  toolCallEnded(event: ToolCallEndedEvent): void;
}

/** Metrics that record nothing: the default. */
export const NO_HOST_METRICS: HostMetrics = { runEnded() {}, toolCallEnded() {} };

/**
 * `metrics` whose failures are logged once and otherwise ignored: a broken metrics sink must never
 * fail a run or a call.
 */
export function guardedHostMetrics(metrics: HostMetrics | undefined, logger: ModuleLogger): HostMetrics {
  if (!metrics) return NO_HOST_METRICS;
  let warned = false;
  const guard =
    <E>(report: (event: E) => void) =>
    (event: E) => {
      try {
        report(event);
      } catch (error) {
        if (warned) return;
        warned = true;
        logger.warn('metrics: reporting failed (later failures are not logged)', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    };
  return {
    runEnded: guard((event) => metrics.runEnded(event)),
    toolCallEnded: guard((event) => metrics.toolCallEnded(event)),
  };
}
