import type { JSONSchema } from '@cyrnel/sdk';
import { isJsonMediaType, isTextMediaType } from './media-types';
import type { NormalizedOperation } from './normalized-operation';
import { FILE_OBJECT_SCHEMA, type SchemaRegistry } from './schema-registry';

const HEADERS_SCHEMA: JSONSchema = { type: 'object', additionalProperties: { type: 'string' } };

/** What `invoke` returns for a binary response body. */
export const BINARY_BODY_SCHEMA: JSONSchema = {
  type: 'object',
  properties: { base64: { type: 'string' }, contentType: { type: 'string' } },
  required: ['base64', 'contentType'],
};

function statusSchema(status: string, explicit: number[], ranges: string[]): JSONSchema {
  if (/^\d{3}$/.test(status)) return { const: Number(status) };
  if (/^\dXX$/i.test(status)) {
    const base = Number(status[0]) * 100;
    const inRange = explicit.filter((code) => code >= base && code < base + 100);
    return {
      type: 'integer',
      minimum: base,
      maximum: base + 99,
      ...(inRange.length ? { not: { enum: inRange } } : {}),
    };
  }
  // 'default' covers every status not documented explicitly, so the branches stay mutually exclusive (oneOf).
  const excluded: JSONSchema[] = ranges.map((r) => ({
    minimum: Number(r[0]) * 100,
    maximum: Number(r[0]) * 100 + 99,
  }));
  if (explicit.length > 0) excluded.unshift({ enum: explicit });
  return { type: 'integer', ...(excluded.length ? { not: { anyOf: excluded } } : {}) };
}

function bodySchema(
  media: NormalizedOperation['responses'][number]['media'],
  registry: SchemaRegistry,
  refs: Set<string>,
): JSONSchema {
  const chosen =
    media.find((m) => isJsonMediaType(m.mediaType)) ??
    media.find((m) => isTextMediaType(m.mediaType)) ??
    media[0];
  if (!chosen) return { type: 'null' };
  if (isJsonMediaType(chosen.mediaType))
    return chosen.schema === undefined ? {} : registry.convert(chosen.schema, refs);
  if (isTextMediaType(chosen.mediaType)) return { type: 'string' };
  if (chosen.mediaType.includes('*')) return {};
  return BINARY_BODY_SCHEMA;
}

/**
 * The outputSchema: a `oneOf` with one `{status, headers, body}` branch per documented
 * response; `NXX` ranges and `default` exclude the explicitly documented codes so exactly one branch
 * matches. Without documented responses, a generic `{status, headers, body}` object.
 */
export function buildOutputSchema(op: NormalizedOperation, registry: SchemaRegistry): JSONSchema {
  const refs = new Set<string>();
  const explicit = op.responses.filter((r) => /^\d{3}$/.test(r.status)).map((r) => Number(r.status));
  const ranges = op.responses.filter((r) => /^\dXX$/i.test(r.status)).map((r) => r.status);
  const branches = op.responses.map((response) => ({
    type: 'object',
    properties: {
      status: statusSchema(response.status, explicit, ranges),
      headers: HEADERS_SCHEMA,
      body: bodySchema(response.media, registry, refs),
    },
    required: ['status', 'headers', 'body'],
  }));
  const schema: JSONSchema =
    branches.length > 0
      ? { oneOf: branches }
      : {
          type: 'object',
          properties: { status: { type: 'integer' }, headers: HEADERS_SCHEMA, body: {} },
          required: ['status', 'headers', 'body'],
        };
  return schema;
}

export { FILE_OBJECT_SCHEMA };
