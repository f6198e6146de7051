import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

/** Where traces go and how they are sampled, from `--otel` and the standard `OTEL_*` variables. */
export interface TelemetrySettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  readonly url: string;
  readonly sampler: Sampler;
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

function samplerOf(env: NodeJS.ProcessEnv, warnings: string[]): Sampler {
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
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      warnings.push(`OTEL_TRACES_SAMPLER=${name.slice(0, 40)} is not supported: using parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * The tracing settings of a server: `--otel` (`CYRNEL_OTEL`) wins, else
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (as it is), else `OTEL_EXPORTER_OTLP_ENDPOINT` (with
 * `/v1/traces`); undefined (tracing off) without any, or with `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`. A protocol other than `http/json` is a warning: cyrnel sends
 * OTLP/HTTP with JSON bodies.
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
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== 'http/json')
    warnings.push(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol.slice(0, 40)} is not supported: traces are sent as OTLP/HTTP with JSON bodies (http/json)`,
    );
  return { url, sampler: samplerOf(env, warnings), warnings };
}
