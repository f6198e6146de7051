import { isHttpUrl } from './flag-checks';
import { switchFlag, textFlag } from './flag-spec';

/** The settings of OpenTelemetry tracing. Part of `SERVER_SETTINGS`, after the network's. */
export const TELEMETRY_SETTINGS = {
  otel: textFlag({
    flag: 'otel',
    env: 'CYRNEL_OTEL',
    help: 'send OpenTelemetry traces over OTLP/HTTP (protobuf) to this collector (`http://127.0.0.1:4318`)',
    details:
      'a URL ending in `/v1/traces` is used as it is, any other gets `/v1/traces` appended; `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` turn tracing on too, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` sends JSON instead, and `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` and `OTEL_BSP_*` are read; a collector out of reach is a warning in the log, never a failed call (see `docs/observability.md`)',
    default: undefined,
    shownDefault: 'off, unless `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set',
    check: (url) => (isHttpUrl(url) ? undefined : 'must be an http(s) URL'),
  }),
  otelArgumentShapes: switchFlag({
    flag: 'otel-argument-shapes',
    env: 'CYRNEL_OTEL_ARGUMENT_SHAPES',
    help: 'while tracing, record the shape of each tool call’s parameters on its span: keys and value types, never a value',
  }),
} as const;
