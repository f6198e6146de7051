import type { HostMetrics } from '@cyrnel/core';
import { Counter, Histogram, type Registry } from 'prom-client';
import { boundedToolLabels, upstreamClass } from './metrics-labels';

/** Seconds a run takes from `running` to its end: trivial scripts to the longest timeouts. */
const RUN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds a run waits for a sandbox. */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds of one tool call, up to the invoke deadline (60 s). */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The core's reports as Prometheus metrics: runs by exit state (and the reason of those that did
 * not end by themselves), their run and queue times, tool calls by service, tool and outcome with
 * their durations, upstream answers by class, and calls refused before leaving, by reason only
 * (their ids are whatever the code wrote).
 *
 * @example
 * ```ts
 * const host = await createHost({ ...options, metrics: hostMetrics(registry) });
 * ```
 */
export function hostMetrics(registry: Registry): HostMetrics {
  const registers = [registry];
  const runs = new Counter({
    name: 'cyrnel_process_runs_total',
    help: "Runs that ended on this host, by exit state and the reason of a run that did not end by itself or whose sandbox failed ('none' otherwise)",
    labelNames: ['exit_state', 'reason'] as const,
    registers,
  });
  const runSeconds = new Histogram({
    name: 'cyrnel_process_run_seconds',
    help: 'Seconds from running to the end of runs on this host, by exit state',
    labelNames: ['exit_state'] as const,
    buckets: RUN_BUCKETS,
    registers,
  });
  const queueSeconds = new Histogram({
    name: 'cyrnel_process_queue_wait_seconds',
    help: "Seconds runs on this host waited from dispatch to running (for a sandbox of the environment's pool)",
    buckets: WAIT_BUCKETS,
    registers,
  });
  const calls = new Counter({
    name: 'cyrnel_tool_calls_total',
    help: "Tool calls that reached their adapter, by service, tool and outcome ('ok', or the failure's reason: upstream_failed, invoke_timeout, ...)",
    labelNames: ['service', 'tool', 'outcome'] as const,
    registers,
  });
  const callSeconds = new Histogram({
    name: 'cyrnel_tool_call_seconds',
    help: 'Seconds of tool calls that reached their adapter, by service and tool',
    labelNames: ['service', 'tool'] as const,
    buckets: CALL_BUCKETS,
    registers,
  });
  const upstream = new Counter({
    name: 'cyrnel_upstream_responses_total',
    help: 'Answers of upstreams to tool calls, by service and class: 2xx, 3xx, 4xx, 5xx from the HTTP status, network_error when the adapter failed without one, no_status for a success without one (MCP)',
    labelNames: ['service', 'class'] as const,
    registers,
  });
  const refused = new Counter({
    name: 'cyrnel_tool_calls_refused_total',
    help: 'Tool calls refused before anything was sent (unknown or disabled tool, invalid parameters, blocked, denied or expired approval, ...), by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  const toolLabels = boundedToolLabels();
  return {
    runEnded(event) {
      const exitState = event.exitState;
      runs.inc({ exit_state: exitState, reason: event.errorReason ?? 'none' });
      if (event.runMs !== null) runSeconds.observe({ exit_state: exitState }, event.runMs / 1000);
      if (event.queuedMs !== null) queueSeconds.observe(event.queuedMs / 1000);
    },
    toolCallEnded(event) {
      // A refused call's ids are the code's own words: never labels.
      if (!event.reached) {
        refused.inc({ reason: event.errorReason ?? 'unknown' });
        return;
      }
      const labels = toolLabels(event.serviceId, event.toolId);
      calls.inc({ ...labels, outcome: event.ok ? 'ok' : (event.errorReason ?? 'error') });
      callSeconds.observe(labels, event.durationMs / 1000);
      upstream.inc({ service: labels.service, class: upstreamClass(event) });
    },
  };
}
