import { DEFAULT_APP_LIMITS } from '@cyrnel/http';
import { addressFlag, integerFlag, switchFlag } from './flag-spec';

/** Lines `GET /logs` can show when the operator sets nothing: enough for the last minutes of a busy server. */
export const DEFAULT_LOG_BUFFER_LINES = 2000;

/**
 * The settings of what operators watch: the Prometheus metrics' own listener and the buffer of
 * recent log lines behind `GET /logs`. Part of `SERVER_SETTINGS`, in this order.
 */
export const OBSERVABILITY_SETTINGS = {
  metricsListen: addressFlag({
    flag: 'metrics-listen',
    env: 'CYRNEL_METRICS_LISTEN',
    help: 'also serve `GET /metrics` without a key on this `host:port` (`127.0.0.1:9464`), for a Prometheus scraper',
    details:
      'on the API port `/metrics` needs an admin key; a non-loopback address needs `--metrics-public` (see *Metrics and logs*)',
    shownDefault: 'off',
  }),
  metricsPublic: switchFlag({
    flag: 'metrics-public',
    env: 'CYRNEL_METRICS_PUBLIC',
    help: 'let `--metrics-listen` bind a non-loopback address: anyone who reaches it reads the metrics (counts, durations, service and tool ids; never a secret, a key or process data)',
  }),
  logBufferLines: integerFlag({
    flag: 'log-buffer-lines',
    env: 'CYRNEL_LOG_BUFFER_LINES',
    help: 'recent log lines kept in memory for `GET /logs` (`info` and above; `debug` too with `--log-level debug`), secrets removed',
    details: '0 = none kept and `/logs` not served',
    default: DEFAULT_LOG_BUFFER_LINES,
    min: 0,
    max: 100_000,
  }),
  maxLogFollowers: integerFlag({
    flag: 'max-log-followers',
    env: 'CYRNEL_MAX_LOG_FOLLOWERS',
    help: '`GET /logs?follow=1` streams open at once (429 `too_many_streams` beyond): every log line is sent to each',
    default: DEFAULT_APP_LIMITS.maxLogFollowers,
    min: 1,
    max: 10_000,
  }),
} as const;
