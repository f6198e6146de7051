import type { MessagePort } from 'node:worker_threads';
import type { PackedSpan } from '@cyrnel/core';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import type { BatchSettings, OtlpProtocol } from './telemetry-settings';

/** What the exporter thread starts with (`workerData`). */
export interface ExporterSettings {
  /** The collector's OTLP/HTTP traces URL. */
  readonly url: string;
  /** The encoding of the exports. */
  readonly protocol: OtlpProtocol;
  /** The resource's own attributes (`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` are merged in). */
  readonly resource: Readonly<Record<string, string>>;
  /** The batch span processor's settings (`OTEL_BSP_*`); absent ones are the SDK's defaults. */
  readonly batch?: BatchSettings;
}

/** From the main thread to the exporter thread: a batch of spans, or a request. */
export type ToExporter =
  | readonly PackedSpan[]
  /** A gateway worker's port: batches of spans arrive on it. */
  | { readonly t: 'port'; readonly port: MessagePort }
  /** Export what it holds now; answered with `done`. */
  | { readonly t: 'flush'; readonly id: number }
  /** Export what it holds and stop the exporter; answered with `done`. */
  | { readonly t: 'shutdown'; readonly id: number };

/** From the exporter thread to the main thread. */
export type FromExporter =
  /** An export failed (the collector out of reach, or refusing): a warning for the log. */
  { readonly t: 'warn'; readonly message: string } | { readonly t: 'done'; readonly id: number };

/** The built thread: beside this bundle in `dist/`, or in `../dist/` when running from `src/`. */
export const EXPORTER_THREAD_URL = new URL(
  import.meta.url.endsWith('.ts') ? '../dist/telemetry-exporter-thread.js' : './telemetry-exporter-thread.js',
  import.meta.url,
);

/**
 * The OpenTelemetry API's diagnostics of this thread go to `warn` (warnings and errors only): a
 * collector out of reach is a warning, never a crash. Both the main thread and the exporter
 * thread set it.
 */
export function warnOnlyDiagnostics(warn: (message: string) => void): void {
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
}
