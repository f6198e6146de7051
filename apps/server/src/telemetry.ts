import { createRelayTracerProvider, type RelayedSpan, type TracingOptions } from '@cyrnel/core';
import { context, DiagLogLevel, diag, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { ServerLogger } from './create-logger';
import { type ExporterThread, startExporterThread } from './telemetry-exporter';
import { shownUrl, telemetrySettings } from './telemetry-settings';

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
  /** Export what is left (bounded by {@link SHUTDOWN_MS}) and, for the last server of the process, stop. */
  close(): Promise<void>;
}

/** Longest wait for the last spans at shutdown: a collector out of reach never holds the stop. */
export const SHUTDOWN_MS = 2_000;
/** One warning about failed exports per this many ms; the others are counted in the next. */
const WARN_EVERY_MS = 60_000;

/** The tracing of this process: the OpenTelemetry API is global, so servers in one process share it. */
interface Installed {
  readonly exporter: ExporterThread;
  readonly url: string;
  users: number;
}
let installed: Installed | undefined;

/** Warnings about exports, at most one a minute, counting the rest. */
function exportWarnings(logger: ServerLogger, url: string): (error: unknown) => void {
  let last = 0;
  let suppressed = 0;
  return (error) => {
    const now = Date.now();
    if (last !== 0 && now - last < WARN_EVERY_MS) {
      suppressed++;
      return;
    }
    last = now;
    const message = error instanceof Error ? error.message : String(error);
    logger.warn('tracing: spans could not be sent to the collector; calls and runs go on', {
      collector: shownUrl(url),
      error: message.slice(0, 200),
      ...(suppressed > 0 ? { alsoFailed: suppressed } : {}),
    });
    suppressed = 0;
  };
}

function install(settings: NonNullable<ReturnType<typeof telemetrySettings>>, options: StartTracingOptions) {
  const warn = exportWarnings(options.logger, settings.url);
  // The SDK's exporter runs in its own thread; the main thread records spans with the light tracer
  // (the SDK's sampler decides) and hands them over in batches.
  const exporter = startExporterThread({
    url: settings.url,
    resource: {
      'service.name': 'cyrnel-server',
      'service.version': options.version,
      'service.instance.id': options.hostId,
    },
    onExportError: warn,
    logger: options.logger,
  });
  diag.setLogger(
    {
      error: (message) => warn(message),
      warn: (message) => warn(message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    createRelayTracerProvider((span) => exporter.add(span), { sampler: settings.sampler }),
  );
  return { exporter, url: settings.url, users: 0 };
}

async function uninstall(own: Installed): Promise<void> {
  await bounded(own.exporter.close());
  trace.disable();
  propagation.disable();
  context.disable();
  diag.disable();
}

/** `work`, or nothing after {@link SHUTDOWN_MS}: a collector out of reach never holds a stop. */
function bounded(work: Promise<void>): Promise<unknown> {
  return Promise.race([
    work.catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref()),
  ]);
}

/**
 * Set up OpenTelemetry tracing for a server when `--otel` or the standard variables ask for it
 * (see `telemetrySettings`); undefined when tracing is off. The main thread records spans with a
 * light tracer of `@cyrnel/core` (the SDK's sampler decides which) and hands them in batches to one
 * exporter thread, where the SDK's batch processor sends them over OTLP/HTTP (JSON); the egress
 * gateway's worker threads send theirs to that thread straight. A collector out of reach, or one
 * that refuses them, is a warning in the log (at most one a minute), never a failed call or a
 * stalled run. Tracing is the process's: a second server in the same process shares it.
 *
 * @example
 * ```ts
 * const tracing = startTracing({ endpoint: 'http://127.0.0.1:4318', argumentShapes: false, hostId, version, logger });
 * createHost({ ...options, ...(tracing ? { tracing: tracing.options } : {}) });
 * ```
 */
export function startTracing(options: StartTracingOptions): ServerTracing | undefined {
  const settings = telemetrySettings(options.endpoint, options.env ?? process.env);
  if (!settings) return undefined;
  for (const warning of settings.warnings) options.logger.warn(`tracing: ${warning}`);
  if (installed && installed.url !== settings.url)
    options.logger.warn(
      'tracing: this process already sends traces elsewhere; this server uses the same collector',
      {
        collector: shownUrl(installed.url),
      },
    );
  installed ??= install(settings, options);
  const own = installed;
  own.users++;
  options.logger.info('tracing: sending traces', { collector: shownUrl(own.url) });
  const exportRelayed = (spans: readonly RelayedSpan[]) => own.exporter.addAll(spans);
  const exportPort = () => own.exporter.port();
  let closed = false;
  return {
    url: own.url,
    options: { argumentShapes: options.argumentShapes, exportRelayed, exportPort },
    async close() {
      if (closed) return;
      closed = true;
      own.users--;
      if (own.users > 0) {
        await bounded(own.exporter.flush());
        return;
      }
      if (installed === own) installed = undefined;
      await uninstall(own);
    },
  };
}
