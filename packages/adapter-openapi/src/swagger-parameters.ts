import type { NormalizedOperation } from './normalized-operation';
import type { PropertyEncoding } from './operation-model';

/** The OpenAPI 3 default style of a parameter location. */
export function defaultStyle(location: string): string {
  return location === 'query' || location === 'cookie' ? 'form' : 'simple';
}

/** Swagger 2.0 `collectionFormat` as an OpenAPI 3 style/explode pair (`tsv` has no OpenAPI 3 style). */
export function fromCollectionFormat(format: unknown, location: string): { style: string; explode: boolean } {
  switch (format) {
    case 'multi':
      return { style: 'form', explode: true };
    case 'ssv':
      return { style: 'spaceDelimited', explode: false };
    case 'pipes':
      return { style: 'pipeDelimited', explode: false };
    case 'tsv':
      return { style: 'tabDelimited', explode: false };
    default:
      return { style: defaultStyle(location), explode: false };
  }
}

/** Swagger 2.0 non-body parameters carry the schema keywords on the parameter itself. */
export function swaggerParamSchema(param: Record<string, unknown>): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  for (const key of [
    'type',
    'format',
    'items',
    'enum',
    'default',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'minLength',
    'maxLength',
    'pattern',
    'minItems',
    'maxItems',
    'uniqueItems',
    'multipleOf',
    'x-nullable',
  ]) {
    if (param[key] !== undefined) schema[key] = param[key];
  }
  return schema;
}

/** Swagger 2.0 `formData` parameters as one form-urlencoded or multipart body (multipart when a file is present or only multipart is consumed). */
export function swaggerFormBody(
  fields: Record<string, unknown>[],
  consumes: unknown,
): NormalizedOperation['body'] {
  const hasFile = fields.some((f) => f.type === 'file');
  const multipart =
    hasFile ||
    (Array.isArray(consumes) &&
      consumes.includes('multipart/form-data') &&
      !consumes.includes('application/x-www-form-urlencoded'));
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const encoding: Record<string, PropertyEncoding> = {};
  for (const field of fields) {
    const name = field.name as string;
    properties[name] = {
      ...swaggerParamSchema(field),
      ...(typeof field.description === 'string' ? { description: field.description } : {}),
    };
    if (field.required === true) required.push(name);
    const { style, explode } = fromCollectionFormat(field.collectionFormat, 'query');
    encoding[name] = { style, explode, ...(field.type === 'file' ? { file: true } : {}) };
  }
  const schema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  return {
    required: required.length > 0,
    media: [
      {
        mediaType: multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded',
        schema,
        encoding,
      },
    ],
  };
}
