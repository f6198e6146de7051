import type { TracingOptions } from '@cyrnel/core';
import type { ServerLogger } from './create-logger';
import type { TracingSdk, TracingSdkOptions } from './telemetry-sdk';
import { shownUrl, type TelemetrySettings, telemetrySettings } from './telemetry-settings';

/** Options of {@link startTracing}. */
export interface StartTracingOptions {
  /** `--otel`: the collector's OTLP/HTTP endpoint (absent: the `OTEL_*` variables decide). */
  readonly endpoint: string | undefined;
  /** `--otel-argument-shapes`. */
  readonly argumentShapes: boolean;
  /** This host's id: the resource's `service.instance.id`. */
  readonly hostId: string;
  readonly version: string;
  readonly logger: ServerLogger;
  /** Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Tracing of one server: what its host and HTTP app are given, and its end. */
export interface ServerTracing {
  /** The core host's `tracing` option. */
  readonly options: TracingOptions;
  /** The collector's traces URL. */
  readonly url: string;
  /** Export what is left (bounded, 2 s) and, for the last server of the process, stop. */
  close(): Promise<void>;
}

/** Loads and installs the SDK (`telemetry-sdk.ts`); a test gives another. */
export type TracingSdkLoader = (
  settings: TelemetrySettings,
  options: TracingSdkOptions,
) => Promise<TracingSdk>;

/** The OpenTelemetry SDK, loaded only now: a server without tracing never holds its modules. */
const loadSdk: TracingSdkLoader = async (settings, options) =>
  (await import('./telemetry-sdk')).installTracingSdk(settings, options);

/** The SDK of this process: the OpenTelemetry API is global, so servers in one process share it. */
interface Installed {
  readonly sdk: Promise<TracingSdk>;
  readonly url: string;
  users: number;
}
let installed: Installed | undefined;

/**
 * Set up OpenTelemetry tracing for a server when `--otel` or the standard variables ask for it
 * (see `telemetrySettings`); undefined when tracing is off, and then the SDK is never loaded.
 * The main thread records spans with a light tracer of `@cyrnel/core` (the SDK's sampler decides
 * which) and hands them in batches to one exporter thread, where the SDK's batch processor sends
 * them over OTLP/HTTP (protobuf, or JSON when asked); the egress gateway's worker threads send theirs to that thread
 * straight. A collector out of reach, or one that refuses them, is a warning in the log (at most
 * one a minute), never a failed call or a stalled run. Tracing is the process's: a second server
 * in the same process shares it. An SDK that cannot be
 * loaded (a broken install) rejects with an error that says so: the server does not start
 * without the tracing it was asked for.
 *
 * @example
 * ```ts
 * const tracing = await startTracing({ endpoint: 'http://127.0.0.1:4318', argumentShapes: false, hostId, version, logger });
 * createHost({ ...options, ...(tracing ? { tracing: tracing.options } : {}) });
 * ```
 */
export async function startTracing(
  options: StartTracingOptions,
  load: TracingSdkLoader = loadSdk,
): Promise<ServerTracing | undefined> {
  const settings = telemetrySettings(options.endpoint, options.env ?? process.env);
  if (!settings) return undefined;
  for (const warning of settings.warnings) options.logger.warn(`tracing: ${warning}`);
  if (installed && installed.url !== settings.url)
    options.logger.warn(
      'tracing: this process already sends traces elsewhere; this server uses the same collector',
      { collector: shownUrl(installed.url) },
    );
  if (!installed) {
    const attempt: Installed = {
      url: settings.url,
      users: 0,
      sdk: load(settings, options).catch((error: unknown) => {
        if (installed === attempt) installed = undefined;
        const why = error instanceof Error ? error.message : String(error);
        throw new Error(`tracing is on but the OpenTelemetry SDK could not be loaded: ${why}`, {
          cause: error,
        });
      }),
    };
    installed = attempt;
  }
  const own = installed;
  own.users++;
  let sdk: TracingSdk;
  try {
    sdk = await own.sdk;
  } catch (error) {
    own.users--;
    throw error;
  }
  options.logger.info('tracing: sending traces', { collector: shownUrl(own.url) });
  let closed = false;
  return {
    url: own.url,
    options: {
      argumentShapes: options.argumentShapes,
      exportRelayed: sdk.exportRelayed,
      ...(sdk.exportPort ? { exportPort: sdk.exportPort } : {}),
    },
    async close() {
      if (closed) return;
      closed = true;
      own.users--;
      if (own.users > 0) return sdk.flush();
      if (installed === own) installed = undefined;
      await sdk.uninstall();
    },
  };
}
