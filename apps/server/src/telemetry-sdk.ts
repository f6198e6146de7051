import type { RelayedSpan } from '@cyrnel/core';
import { context, DiagLogLevel, diag, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { ServerLogger } from './create-logger';
import { readableOf } from './telemetry-relay';
import { type SamplerSetting, shownUrl, type TelemetrySettings } from './telemetry-settings';

// The OpenTelemetry SDK and its OTLP exporter (≈ 190 modules): `telemetry.ts` loads this file
// only when tracing is on, so a server without tracing never holds them.

/** Longest wait for the last spans at shutdown: a collector out of reach never holds the stop. */
export const SHUTDOWN_MS = 2_000;
/** One warning about failed exports per this many ms; the others are counted in the next. */
const WARN_EVERY_MS = 60_000;

/** What the host, the relay and the server's end need of the installed SDK. */
export interface TracingSdk {
  readonly url: string;
  /** Hand spans finished in a gateway worker thread to the batch exporter. */
  exportRelayed(spans: readonly RelayedSpan[]): void;
  /** Export what is batched, waiting at most {@link SHUTDOWN_MS}. */
  flush(): Promise<void>;
  /** Export what is left (at most {@link SHUTDOWN_MS}) and take the SDK out of the global API. */
  uninstall(): Promise<void>;
}

/** Settings and identity of the server that installs the SDK. */
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

function bounded(work: Promise<unknown>): Promise<unknown> {
  return Promise.race([
    work.catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref()),
  ]);
}

/**
 * Install the SDK as the process's (the OpenTelemetry API is global): spans batched and sent over
 * OTLP/HTTP (JSON) to `settings.url`, export failures a rate-limited warning in the log.
 */
export function installTracingSdk(settings: TelemetrySettings, options: TracingSdkOptions): TracingSdk {
  const resource = resourceFromAttributes({
    'service.name': 'cyrnel-server',
    'service.version': options.version,
    'service.instance.id': options.hostId,
  }).merge(detectResources({ detectors: [envDetector] }));
  const exporter = new OTLPTraceExporter({ url: settings.url });
  const processor = new BatchSpanProcessor({ exporter });
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings.sampler),
    spanProcessors: [processor],
  });
  const warn = exportWarnings(options.logger, settings.url);
  setGlobalErrorHandler(warn);
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
  trace.setGlobalTracerProvider(provider);
  return {
    url: settings.url,
    exportRelayed(spans) {
      for (const span of spans) {
        const readable = readableOf(span, resource);
        if (readable) processor.onEnd(readable);
      }
    },
    flush: async () => {
      await bounded(provider.forceFlush());
    },
    async uninstall() {
      await bounded(provider.shutdown());
      trace.disable();
      propagation.disable();
      context.disable();
      diag.disable();
    },
  };
}
