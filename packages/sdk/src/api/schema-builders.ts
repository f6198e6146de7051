import type { JSONSchema } from '../json-schema';
import { TOOL_ANNOTATIONS, TOOL_LABELS, TOOL_POLICIES } from '../tool-policy';

type Json = JSONSchema;

/** A `$ref` to one of the {@link RECORD_SCHEMAS}. */
export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A page of a list route (`ListResponse`) of one of the {@link RECORD_SCHEMAS}. */
export const page = (item: string): Json => ({
  type: 'object',
  required: ['items', 'nextCursor', 'hasMore'],
  properties: {
    items: { type: 'array', items: ref(item) },
    nextCursor: { type: ['string', 'null'] },
    hasMore: { type: 'boolean' },
  },
});
export const nullable = (type: string): Json => ({ type: [type, 'null'] });

/** An object schema with these properties, `required` of them required. */
export const object = (required: string[], properties: Json, extra: Json = {}): Json => ({
  type: 'object',
  required,
  properties,
  ...extra,
});

/** A tool policy (`allow`, `ask`, …). */
export const policy: Json = { enum: [...TOOL_POLICIES] };
/** A tool's labels. */
export const labels: Json = { type: 'array', items: { enum: [...TOOL_LABELS] } };
/** A map of names to tool policies. */
export const policyMap: Json = { type: 'object', additionalProperties: policy };
/** A tool's annotations (`readOnly`, …). */
export const annotations: Json = {
  type: 'object',
  properties: Object.fromEntries(TOOL_ANNOTATIONS.map((name) => [name, { type: 'boolean' }])),
  additionalProperties: false,
};
