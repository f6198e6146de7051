import type { JSONSchema } from '@cyrnel/sdk';
import { planFormFields } from './form-fields';
import { bodyKindOf } from './media-types';
import type { NormalizedOperation } from './normalized-operation';
import type { BodyPlan, ParameterPlan } from './operation-model';
import { FILE_OBJECT_SCHEMA, type SchemaRegistry } from './schema-registry';
import { setOwn } from './set-own';

const SLOT_OF = { path: 'path', query: 'query', header: 'headers', cookie: 'cookies' } as const;
const BODY_PREFERENCE = ['json', 'form', 'multipart', 'text', 'binary'] as const;

/** The input schema of a tool and how its parameters and body are sent. */
export interface InputPlan {
  readonly inputSchema: JSONSchema;
  readonly parameters: ParameterPlan[];
  readonly body?: BodyPlan;
}

/**
 * Build the input schema with the slots `path`, `query`, `headers`, `cookies` and `body` (only the
 * ones the operation uses), and the serialisation plan for each parameter and the body. Component
 * schemas stay `{ $ref: '#/$defs/<name>' }` into the service's shared schemas (`registry.allDefs()`).
 */
export function buildInputSchema(op: NormalizedOperation, registry: SchemaRegistry): InputPlan {
  const refs = new Set<string>();
  const slots: Record<string, { properties: Record<string, JSONSchema>; required: string[] }> = {};
  const parameters: ParameterPlan[] = [];
  for (const param of op.parameters) {
    const slotName = SLOT_OF[param.in];
    slots[slotName] ??= { properties: {}, required: [] };
    const slot = slots[slotName];
    let schema = param.schema === undefined ? {} : registry.convert(param.schema, refs);
    if (param.description !== undefined && schema.description === undefined)
      schema = { ...schema, description: param.description };
    if (param.deprecated) schema = { ...schema, deprecated: true };
    setOwn(slot.properties, param.name, schema);
    if (param.required) slot.required.push(param.name);
    parameters.push({
      name: param.name,
      in: param.in,
      style: param.style,
      explode: param.explode,
      ...(param.allowReserved ? { allowReserved: true } : {}),
      ...(param.contentType ? { contentType: param.contentType } : {}),
    });
  }
  const properties: Record<string, JSONSchema> = {};
  const required: string[] = [];
  for (const slotName of ['path', 'query', 'headers', 'cookies']) {
    const slot = slots[slotName];
    if (!slot) continue;
    properties[slotName] = {
      type: 'object',
      properties: slot.properties,
      ...(slot.required.length > 0 ? { required: slot.required } : {}),
      additionalProperties: false,
    };
    if (slot.required.length > 0) required.push(slotName);
  }
  let body: BodyPlan | undefined;
  if (op.body && op.body.media.length > 0) {
    const ranked = op.body.media.map((m) => ({ media: m, kind: bodyKindOf(m.mediaType) }));
    const chosen =
      BODY_PREFERENCE.map((kind) => ranked.find((r) => r.kind === kind)).find((r) => r !== undefined) ??
      ranked[0];
    if (chosen) {
      const { media, kind } = chosen;
      let schema: JSONSchema;
      if (kind === 'text') schema = { type: 'string' };
      else if (kind === 'binary') {
        schema =
          media.mediaType.includes('*') && media.schema !== undefined
            ? registry.convert(media.schema, refs)
            : { anyOf: [{ type: 'string' }, FILE_OBJECT_SCHEMA] };
      } else schema = media.schema === undefined ? {} : registry.convert(media.schema, refs);
      if (op.body.description !== undefined && schema.description === undefined)
        schema = { ...schema, description: op.body.description };
      const fields =
        kind === 'form' || kind === 'multipart' ? planFormFields(media, schema, registry) : undefined;
      properties.body = fields?.schema ?? schema;
      if (op.body.required) required.push('body');
      body = { mediaType: media.mediaType, kind, ...(fields ? { encoding: fields.encoding } : {}) };
    }
  }
  const inputSchema: JSONSchema = {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  return { inputSchema, parameters, ...(body ? { body } : {}) };
}
