import { DEFAULT_PROCESS_LIMITS } from '@cyrnel/core';
import { DEFAULT_APP_LIMITS } from '@cyrnel/http';
import { MAX_TIMER_DELAY_MS } from '@cyrnel/sdk';
import { durationFlag, integerFlag } from './flag-spec';

/**
 * The settings of what one request, one process, one key and the whole server may take: request
 * bodies and JSON shapes, definitions and downloads, code and what a run writes, live and stored
 * processes, retention, the per-key rate limit, timeouts, event streams and the shutdown's grace.
 * The defaults are the HTTP layer's and the core's own constants. Part of `SERVER_SETTINGS`, in
 * this order.
 */
export const LIMITS_SETTINGS = {
  maxBodyBytes: integerFlag({
    flag: 'max-body-bytes',
    env: 'CYRNEL_MAX_BODY_BYTES',
    help: 'largest request body (413 beyond)',
    default: DEFAULT_APP_LIMITS.maxBodyBytes,
  }),
  maxJsonDepth: integerFlag({
    flag: 'max-json-depth',
    env: 'CYRNEL_MAX_JSON_DEPTH',
    help: 'deepest nesting of arrays and objects in a JSON body (400 beyond)',
    default: DEFAULT_APP_LIMITS.maxJsonDepth,
    max: 10_000,
  }),
  maxJsonElements: integerFlag({
    flag: 'max-json-elements',
    env: 'CYRNEL_MAX_JSON_ELEMENTS',
    help: 'most arrays, objects and comma-separated values in a JSON body (400 beyond)',
    details:
      'parsing a 64 MiB body of tiny values would hold the event loop for a second, 50,000 elements take a few milliseconds; a definition travels as one string and never meets it',
    default: DEFAULT_APP_LIMITS.maxJsonElements,
  }),
  maxDefinitionBytes: integerFlag({
    flag: 'max-definition-bytes',
    env: 'CYRNEL_MAX_DEFINITION_BYTES',
    help: 'largest definition downloaded by install/update by URL (413 beyond)',
    default: DEFAULT_APP_LIMITS.maxDefinitionBytes,
  }),
  downloadTimeoutMs: integerFlag({
    flag: 'download-timeout-ms',
    env: 'CYRNEL_DOWNLOAD_TIMEOUT_MS',
    help: 'deadline of a definition download (504 beyond)',
    default: DEFAULT_APP_LIMITS.downloadTimeoutMs,
    max: MAX_TIMER_DELAY_MS,
  }),
  maxCodeBytes: integerFlag({
    flag: 'max-code-bytes',
    env: 'CYRNEL_MAX_CODE_BYTES',
    help: 'largest process code in UTF-8 bytes (413 beyond)',
    default: DEFAULT_PROCESS_LIMITS.maxCodeBytes,
  }),
  maxStdoutBytes: integerFlag({
    flag: 'max-stdout-bytes',
    env: 'CYRNEL_MAX_STDOUT_BYTES',
    help: 'stdout kept per process, then truncated with a marker',
    default: DEFAULT_PROCESS_LIMITS.maxStdoutBytes,
  }),
  maxStderrBytes: integerFlag({
    flag: 'max-stderr-bytes',
    env: 'CYRNEL_MAX_STDERR_BYTES',
    help: 'stderr kept per process, then truncated with a marker',
    default: DEFAULT_PROCESS_LIMITS.maxStderrBytes,
  }),
  maxOutputBytes: integerFlag({
    flag: 'max-output-bytes',
    env: 'CYRNEL_MAX_OUTPUT_BYTES',
    help: 'largest merged output JSON of a process (`cyrnel.output` throws beyond)',
    default: DEFAULT_PROCESS_LIMITS.maxOutputBytes,
    min: 2,
  }),
  maxEnvConfigBytes: integerFlag({
    flag: 'max-env-config-bytes',
    env: 'CYRNEL_MAX_ENV_CONFIG_BYTES',
    help: 'largest `envConfig` of a process, in bytes of its JSON (413 beyond)',
    default: DEFAULT_PROCESS_LIMITS.maxEnvConfigBytes,
    min: 2,
  }),
  maxLiveProcesses: integerFlag({
    flag: 'max-live-processes',
    env: 'CYRNEL_MAX_LIVE_PROCESSES',
    help: 'queued + running + terminating processes before 429',
    default: DEFAULT_PROCESS_LIMITS.maxLiveProcesses,
  }),
  maxProcessesPerKey: integerFlag({
    flag: 'max-processes-per-key',
    env: 'CYRNEL_MAX_PROCESSES_PER_KEY',
    help: 'live processes one stored API key may have before 429 `too_many_processes` (with `Retry-After`)',
    details: 'the global limit still applies',
    default: DEFAULT_PROCESS_LIMITS.maxLiveProcessesPerKey,
  }),
  maxStoredBytesPerKey: integerFlag({
    flag: 'max-stored-bytes-per-key',
    env: 'CYRNEL_MAX_STORED_BYTES_PER_KEY',
    help: 'bytes the processes of one stored API key may hold (code, envConfig, output, stdout, stderr, tool calls) before its new runs get 429 `storage_quota_exceeded`',
    details: '0 = no bound (see *Quotas and retention*)',
    default: DEFAULT_PROCESS_LIMITS.maxStoredBytesPerKey,
    min: 0,
  }),
  processRetention: durationFlag({
    flag: 'process-retention',
    env: 'CYRNEL_PROCESS_RETENTION',
    help: 'idle processes last changed longer ago than this (`90s`, `12h`, `7d`) are deleted with their results and calls',
    details: '0 = kept forever',
    default: DEFAULT_PROCESS_LIMITS.retentionMs,
    shownDefault: '`7d`',
  }),
  processRetentionCount: integerFlag({
    flag: 'process-retention-count',
    env: 'CYRNEL_PROCESS_RETENTION_COUNT',
    help: 'idle processes of one stored API key beyond its newest this many are deleted',
    details: '0 = no bound',
    default: DEFAULT_PROCESS_LIMITS.retentionPerKey,
    min: 0,
  }),
  rateLimit: integerFlag({
    flag: 'rate-limit',
    env: 'CYRNEL_RATE_LIMIT',
    help: 'requests a second one stored API key may send to `POST /processes`, `POST /processes/:id/signals/run` and `/mcp` together before 429 `rate_limited` (with `Retry-After`)',
    details: 'counted per host; 0 = no limit',
    default: DEFAULT_APP_LIMITS.rateLimitPerSecond,
    min: 0,
  }),
  rateLimitBurst: integerFlag({
    flag: 'rate-limit-burst',
    env: 'CYRNEL_RATE_LIMIT_BURST',
    help: 'requests one stored API key may send at once within `--rate-limit`',
    default: DEFAULT_APP_LIMITS.rateLimitBurst,
  }),
  maxTimeoutMs: integerFlag({
    flag: 'max-timeout-ms',
    env: 'CYRNEL_MAX_TIMEOUT_MS',
    help: 'largest `timeoutMs` a process may ask for (400 `invalid_request` naming the limit beyond)',
    default: DEFAULT_PROCESS_LIMITS.maxTimeoutMs,
    max: MAX_TIMER_DELAY_MS,
  }),
  maxEventStreams: integerFlag({
    flag: 'max-event-streams',
    env: 'CYRNEL_MAX_EVENT_STREAMS',
    help: 'process event streams open at once (429 `too_many_streams` with `Retry-After` beyond)',
    default: DEFAULT_APP_LIMITS.maxEventStreams,
  }),
  maxEventQueueBytes: integerFlag({
    flag: 'max-event-queue-bytes',
    env: 'CYRNEL_MAX_EVENT_QUEUE_BYTES',
    help: 'unsent event JSON one event stream may hold before it is dropped',
    default: DEFAULT_APP_LIMITS.maxEventQueueBytes,
  }),
  maxEventBufferBytes: integerFlag({
    flag: 'max-event-buffer-bytes',
    env: 'CYRNEL_MAX_EVENT_BUFFER_BYTES',
    help: 'unsent event JSON all event streams together may hold; a stream that would exceed it is dropped',
    default: DEFAULT_APP_LIMITS.maxEventBufferBytes,
  }),
  shutdownTimeoutMs: integerFlag({
    flag: 'shutdown-timeout-ms',
    env: 'CYRNEL_SHUTDOWN_TIMEOUT_MS',
    help: 'grace for requests in flight and running processes on SIGINT/SIGTERM',
    default: 10_000,
    max: MAX_TIMER_DELAY_MS,
  }),
} as const;
