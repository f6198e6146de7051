import { describe, expect, it } from 'vitest';
import { shownUrl, telemetrySettings, tracesUrl } from './telemetry-settings';

describe('telemetrySettings', () => {
  it('is off without --otel and without the OTLP endpoint variables', () => {
    expect(telemetrySettings(undefined, {})).toBeUndefined();
    expect(telemetrySettings(undefined, { OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('takes --otel first, then the traces endpoint as it is, then the base endpoint with /v1/traces', () => {
    const env = {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces.example:4318/custom',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base.example:4318',
    };
    expect(telemetrySettings('http://flag.example:4318', env)?.url).toBe(
      'http://flag.example:4318/v1/traces',
    );
    expect(telemetrySettings(undefined, env)?.url).toBe('http://traces.example:4318/custom');
    expect(
      telemetrySettings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base.example:4318/otlp/' })?.url,
    ).toBe('http://base.example:4318/otlp/v1/traces');
    expect(tracesUrl('http://c:4318/v1/traces')).toBe('http://c:4318/v1/traces');
  });

  it('stays off when the SDK or the traces exporter is turned off', () => {
    expect(telemetrySettings('http://c:4318', { OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(telemetrySettings('http://c:4318', { OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('warns of a protocol or sampler it does not support, and goes on with its own', () => {
    const settings = telemetrySettings('http://c:4318', {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_TRACES_SAMPLER: 'jaeger_remote',
    });
    expect(settings?.warnings).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: traces are sent as OTLP/HTTP with protobuf bodies (http/protobuf)',
      'OTEL_TRACES_SAMPLER=jaeger_remote is not supported: using parentbased_always_on',
    ]);
    expect(settings?.sampler).toEqual({ root: 'always_on', parentBased: true });
    expect(settings?.protocol).toBe('http/protobuf');
    for (const protocol of ['http/json', 'http/protobuf'] as const) {
      const chosen = telemetrySettings('http://c:4318', { OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      expect(chosen).toMatchObject({ protocol, warnings: [] });
    }
    // The traces' own variable wins over the general one; protobuf when neither is set.
    expect(
      telemetrySettings('http://c:4318', {
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toMatchObject({ protocol: 'http/json', warnings: [] });
    expect(telemetrySettings('http://c:4318', {})?.protocol).toBe('http/protobuf');
    expect(
      telemetrySettings('http://c:4318', {
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      })?.sampler,
    ).toEqual({ root: 'ratio', ratio: 0.25, parentBased: false });
    expect(
      telemetrySettings('http://c:4318', {
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '2',
      }),
    ).toMatchObject({
      sampler: { root: 'ratio', ratio: 1, parentBased: true },
      warnings: ['OTEL_TRACES_SAMPLER_ARG=2 is not a ratio between 0 and 1: using 1'],
    });
  });

  it('takes the batch processor’s settings from the OTEL_BSP_* variables, warning of those it cannot use', () => {
    expect(telemetrySettings('http://c:4318', {})?.batch).toEqual({});
    expect(
      telemetrySettings('http://c:4318', {
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_BSP_MAX_QUEUE_SIZE: '4096',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1024',
        OTEL_BSP_EXPORT_TIMEOUT: '10000',
      }),
    ).toMatchObject({
      batch: {
        scheduledDelayMillis: 200,
        maxQueueSize: 4096,
        maxExportBatchSize: 1024,
        exportTimeoutMillis: 10_000,
      },
      warnings: [],
    });
    expect(
      telemetrySettings('http://c:4318', {
        OTEL_BSP_SCHEDULE_DELAY: '-5',
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512',
        OTEL_BSP_EXPORT_TIMEOUT: 'soon',
      }),
    ).toMatchObject({
      batch: { maxQueueSize: 100, maxExportBatchSize: 100 },
      warnings: [
        'OTEL_BSP_SCHEDULE_DELAY=-5 is not a whole number from 0 to 3600000: not used',
        'OTEL_BSP_EXPORT_TIMEOUT=soon is not a whole number from 1 to 3600000: not used',
        'OTEL_BSP_MAX_EXPORT_BATCH_SIZE is larger than the queue (100): using 100',
      ],
    });
  });

  it('shows a collector in the log without credentials or query', () => {
    expect(shownUrl('https://user:secret@collector.example:4318/v1/traces?token=abc')).toBe(
      'https://collector.example:4318/v1/traces',
    );
  });
});
