/**
 * How traces are sampled (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`), as data: the SDK's
 * sampler is built from it only once tracing is on (`telemetry-sdk.ts`), so a server without
 * tracing never loads the OpenTelemetry SDK.
 */
export interface SamplerSetting {
  /** What decides for a trace's root span. */
  readonly root: 'always_on' | 'always_off' | 'ratio';
  /** The share of traces kept, for `ratio` (0 to 1). */
  readonly ratio?: number;
  /** A span with a parent follows its parent's decision (the `parentbased_*` samplers). */
  readonly parentBased: boolean;
}

/**
 * The batch span processor's settings, from the standard `OTEL_BSP_*` variables (the SDK's own
 * defaults where one is absent): how long a span waits for its export, how many wait at most, how
 * many go in one export, and how long an export may take.
 */
export interface BatchSettings {
  readonly scheduledDelayMillis?: number;
  readonly maxQueueSize?: number;
  readonly maxExportBatchSize?: number;
  readonly exportTimeoutMillis?: number;
}

/**
 * How spans are encoded on OTLP/HTTP: protobuf (the OpenTelemetry default, less than half the
 * bytes of JSON for about the same work) or JSON.
 */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Where traces go and how they are sampled, from `--otel` and the standard `OTEL_*` variables. */
export interface TelemetrySettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  readonly url: string;
  /** The encoding of the exports (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, `OTEL_EXPORTER_OTLP_PROTOCOL`). */
  readonly protocol: OtlpProtocol;
  readonly sampler: SamplerSetting;
  readonly batch: BatchSettings;
  /** Problems with the settings, each a warning for the log (never a refusal to start). */
  readonly warnings: readonly string[];
}

/** The traces URL of an OTLP/HTTP endpoint: as given when it ends in `/v1/traces`, else with it appended. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.toString();
}

/** A URL as the log shows it: no credentials, no query. */
export function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

function samplerOf(env: NodeJS.ProcessEnv, warnings: string[]): SamplerSetting {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = () => {
    const value = arg === undefined || arg === '' ? 1 : Number(arg);
    if (Number.isFinite(value) && value >= 0 && value <= 1) return value;
    warnings.push(
      `OTEL_TRACES_SAMPLER_ARG=${String(arg).slice(0, 40)} is not a ratio between 0 and 1: using 1`,
    );
    return 1;
  };
  switch (name) {
    case 'always_on':
      return { root: 'always_on', parentBased: false };
    case 'always_off':
      return { root: 'always_off', parentBased: false };
    case 'traceidratio':
      return { root: 'ratio', ratio: ratio(), parentBased: false };
    case 'parentbased_always_off':
      return { root: 'always_off', parentBased: true };
    case 'parentbased_traceidratio':
      return { root: 'ratio', ratio: ratio(), parentBased: true };
    case 'parentbased_always_on':
      return { root: 'always_on', parentBased: true };
    default:
      warnings.push(`OTEL_TRACES_SAMPLER=${name.slice(0, 40)} is not supported: using parentbased_always_on`);
      return { root: 'always_on', parentBased: true };
  }
}

/** The `OTEL_BSP_*` variables, and their bounds (one outside them is a warning and not used). */
const BATCH_VARIABLES = [
  ['OTEL_BSP_SCHEDULE_DELAY', 'scheduledDelayMillis', 0, 3_600_000],
  ['OTEL_BSP_MAX_QUEUE_SIZE', 'maxQueueSize', 1, 1_000_000],
  ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'maxExportBatchSize', 1, 1_000_000],
  ['OTEL_BSP_EXPORT_TIMEOUT', 'exportTimeoutMillis', 1, 3_600_000],
] as const;

function batchOf(env: NodeJS.ProcessEnv, warnings: string[]): BatchSettings {
  const batch: { -readonly [K in keyof BatchSettings]: number } = {};
  for (const [name, field, min, max] of BATCH_VARIABLES) {
    const text = env[name]?.trim();
    if (!text) continue;
    const value = Number(text);
    if (/^\d+$/.test(text) && value >= min && value <= max) batch[field] = value;
    else warnings.push(`${name}=${text.slice(0, 40)} is not a whole number from ${min} to ${max}: not used`);
  }
  // The SDK refuses a batch larger than its queue: the batch is cut to it.
  const queue = batch.maxQueueSize ?? 2048;
  if (batch.maxExportBatchSize !== undefined && batch.maxExportBatchSize > queue) {
    warnings.push(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE is larger than the queue (${queue}): using ${queue}`);
    batch.maxExportBatchSize = queue;
  }
  return batch;
}

/**
 * The tracing settings of a server: `--otel` (`CYRNEL_OTEL`) wins, else
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (as it is), else `OTEL_EXPORTER_OTLP_ENDPOINT` (with
 * `/v1/traces`); undefined (tracing off) without any, or with `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. Spans go as OTLP/HTTP with protobuf bodies (`http/protobuf`, the
 * OpenTelemetry default), or JSON ones with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`; any other
 * protocol (`grpc`) is a warning, and protobuf is sent. The batch span processor follows the
 * `OTEL_BSP_*` variables.
 *
 * @example
 * ```ts
 * telemetrySettings('http://127.0.0.1:4318', {})?.url; // 'http://127.0.0.1:4318/v1/traces'
 * ```
 */
export function telemetrySettings(
  endpoint: string | undefined,
  env: NodeJS.ProcessEnv,
): TelemetrySettings | undefined {
  const warnings: string[] = [];
  let url: string | undefined;
  try {
    if (endpoint) url = tracesUrl(endpoint);
    else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
      url = new URL(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).toString();
    else if (env.OTEL_EXPORTER_OTLP_ENDPOINT) url = tracesUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  } catch {
    return undefined;
  }
  if (!url) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  return {
    url,
    protocol: protocolOf(env, warnings),
    sampler: samplerOf(env, warnings),
    batch: batchOf(env, warnings),
    warnings,
  };
}

/** The OTLP encoding the environment asks for: `http/protobuf` unless `http/json`; another is a warning. */
function protocolOf(env: NodeJS.ProcessEnv, warnings: string[]): OtlpProtocol {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (!protocol || protocol === 'http/protobuf') return 'http/protobuf';
  if (protocol === 'http/json') return 'http/json';
  warnings.push(
    `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol.slice(0, 40)} is not supported: traces are sent as OTLP/HTTP with protobuf bodies (http/protobuf)`,
  );
  return 'http/protobuf';
}
