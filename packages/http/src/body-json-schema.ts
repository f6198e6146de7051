import type { BodySchema } from '@cyrnel/sdk/api';

/**
 * A flat body schema of the route table as JSON Schema: the fields, the required ones, nothing
 * else.
 *
 * @example
 * ```ts
 * bodyJsonSchema(ENABLED_BODY);
 * // { type: 'object', properties: { enabled: { type: 'boolean' } }, required: ['enabled'], additionalProperties: false }
 * ```
 */
export function bodyJsonSchema(body: BodySchema): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(body)) {
    const type =
      spec.type === 'positiveInteger' ? { type: 'integer', minimum: 1 } : { type: spec.type as string };
    const field = {
      ...type,
      ...(spec.maxLength === undefined ? {} : { maxLength: spec.maxLength }),
      ...(spec.enum === undefined ? {} : { enum: [...spec.enum] }),
    };
    properties[name] = spec.nullable ? { oneOf: [field, { type: 'null' }] } : field;
    if (spec.required) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
