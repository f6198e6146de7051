import type { MessagePort } from 'node:worker_threads';
import type { RelayedSpan } from '@cyrnel/core';
import { createRelayTracerProvider } from '@cyrnel/core';
import { context, diag, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { ServerLogger } from './create-logger';
import { startExporterThread } from './telemetry-exporter';
import { warnOnlyDiagnostics } from './telemetry-exporter-protocol';
import { type SamplerSetting, shownUrl, type TelemetrySettings } from './telemetry-settings';

// What tracing adds to the main thread (the context manager, the propagator, the SDK's samplers)
// and the exporter thread's handle: `telemetry.ts` loads this file only when tracing is on, so a
// server without tracing never holds these modules. The SDK's exporter runs in the exporter thread.

/** Longest wait for the last spans at shutdown: a collector out of reach never holds the stop. */
export const SHUTDOWN_MS = 2_000;
/** One warning about failed exports per this many ms; the others are counted in the next. */
const WARN_EVERY_MS = 60_000;

/** What the host, the relay and the server's end need of the installed tracing. */
export interface TracingSdk {
  readonly url: string;
  /** Hand spans finished in a gateway worker thread (whose port had closed) to the exporter. */
  exportRelayed(spans: readonly RelayedSpan[]): void;
  /** A port for a gateway worker thread, whose spans then go straight to the exporter thread. */
  exportPort?(): MessagePort | undefined;
  /** Export what is batched, waiting at most {@link SHUTDOWN_MS}. */
  flush(): Promise<void>;
  /** Export what is left (at most {@link SHUTDOWN_MS}) and take tracing out of the global API. */
  uninstall(): Promise<void>;
}

/** Settings and identity of the server that installs tracing. */
export interface TracingSdkOptions {
  readonly hostId: string;
  readonly version: string;
  readonly logger: ServerLogger;
}

/** The SDK's sampler for a {@link SamplerSetting}. */
export function samplerOf(setting: SamplerSetting): Sampler {
  const root =
    setting.root === 'always_off'
      ? new AlwaysOffSampler()
      : setting.root === 'ratio'
        ? new TraceIdRatioBasedSampler(setting.ratio ?? 1)
        : new AlwaysOnSampler();
  return setting.parentBased ? new ParentBasedSampler({ root }) : root;
}

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

/** `work`, or nothing after {@link SHUTDOWN_MS}: a collector out of reach never holds a stop. */
function bounded(work: Promise<unknown>): Promise<unknown> {
  return Promise.race([
    work.catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref()),
  ]);
}

/**
 * Install tracing as the process's (the OpenTelemetry API is global). The main thread records
 * spans with the light tracer of `@cyrnel/core` (the SDK's sampler decides which) and hands them
 * in batches to one exporter thread, where the SDK's batch processor sends them over OTLP/HTTP
 * (JSON) to `settings.url`; export failures are a rate-limited warning in the log.
 */
export function installTracingSdk(settings: TelemetrySettings, options: TracingSdkOptions): TracingSdk {
  const warn = exportWarnings(options.logger, settings.url);
  const exporter = startExporterThread({
    url: settings.url,
    protocol: settings.protocol,
    batch: settings.batch,
    resource: {
      'service.name': 'cyrnel-server',
      'service.version': options.version,
      'service.instance.id': options.hostId,
    },
    onExportError: warn,
    logger: options.logger,
  });
  warnOnlyDiagnostics(warn);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    createRelayTracerProvider((span) => exporter.add(span), { sampler: samplerOf(settings.sampler) }),
  );
  return {
    url: settings.url,
    exportRelayed: (spans) => exporter.addAll(spans),
    exportPort: () => exporter.port(),
    flush: async () => {
      await bounded(exporter.flush());
    },
    async uninstall() {
      await bounded(exporter.close());
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}
