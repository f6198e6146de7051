import { isPlainObject } from '@cyrnel/sdk';
import type { NormalizedMedia, NormalizedOperation, NormalizedParameter } from './normalized-operation';
import type { ParameterLocation, PropertyEncoding } from './operation-model';
import type { OpenApiDialect } from './parse-document';
import { bindKeyQuery, parsePathKey } from './path-key';
import type { SchemaRegistry } from './schema-registry';
import {
  defaultStyle,
  fromCollectionFormat,
  swaggerFormBody,
  swaggerParamSchema,
} from './swagger-parameters';

const LOCATIONS = new Set(['path', 'query', 'header', 'cookie']);

function mediaOf(content: unknown): NormalizedMedia[] {
  if (!isPlainObject(content)) return [];
  return Object.entries(content).map(([mediaType, media]) => {
    const m = isPlainObject(media) ? media : {};
    let encoding: Record<string, PropertyEncoding> | undefined;
    if (isPlainObject(m.encoding)) {
      encoding = {};
      for (const [prop, enc] of Object.entries(m.encoding)) {
        if (!isPlainObject(enc)) continue;
        encoding[prop] = {
          ...(typeof enc.contentType === 'string' ? { contentType: enc.contentType } : {}),
          ...(typeof enc.style === 'string' ? { style: enc.style } : {}),
          ...(typeof enc.explode === 'boolean' ? { explode: enc.explode } : {}),
          ...(enc.allowReserved === true ? { allowReserved: true } : {}),
        };
      }
    }
    return { mediaType, schema: m.schema, ...(encoding ? { encoding } : {}) };
  });
}

/** Inputs of {@link normalizeOperation}. */
export interface NormalizeInput {
  readonly dialect: OpenApiDialect;
  readonly registry: SchemaRegistry;
  readonly root: Record<string, unknown>;
  /** The `paths` key, e.g. `/pets/{petId}` (a query string in it binds query parameters). */
  readonly path: string;
  readonly pathItem: Record<string, unknown>;
  readonly operation: Record<string, unknown>;
}

/** Merge path-level and operation-level parameters (operation wins) and normalise body and responses. */
export function normalizeOperation(input: NormalizeInput): NormalizedOperation {
  const { dialect, registry, root, pathItem, operation } = input;
  const merged = new Map<string, Record<string, unknown>>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const param = registry.deref(raw);
      if (!isPlainObject(param) || typeof param.name !== 'string' || typeof param.in !== 'string') continue;
      merged.set(`${param.in}\u0000${param.name}`, param);
    }
  }
  const parameters: NormalizedParameter[] = [];
  const formFields: Record<string, unknown>[] = [];
  let body: NormalizedOperation['body'];
  for (const param of merged.values()) {
    const location = param.in as string;
    const name = param.name as string;
    if (location === 'body') {
      const consumes = (operation.consumes ?? root.consumes) as unknown;
      const types =
        Array.isArray(consumes) && consumes.length > 0 ? (consumes as string[]) : ['application/json'];
      body = {
        required: param.required === true,
        ...(typeof param.description === 'string' ? { description: param.description } : {}),
        media: types.map((mediaType) => ({ mediaType, schema: param.schema })),
      };
      continue;
    }
    if (location === 'formData') {
      formFields.push(param);
      continue;
    }
    if (!LOCATIONS.has(location)) continue;
    const base = {
      name,
      in: location as ParameterLocation,
      required: location === 'path' || param.required === true,
      ...(typeof param.description === 'string' ? { description: param.description } : {}),
      ...(param.deprecated === true ? { deprecated: true } : {}),
    };
    if (dialect === '2.0') {
      parameters.push({
        ...base,
        schema: swaggerParamSchema(param),
        allowReserved: false,
        ...fromCollectionFormat(param.collectionFormat, location),
      });
      continue;
    }
    const style = typeof param.style === 'string' ? param.style : defaultStyle(location);
    const content = mediaOf(param.content)[0];
    parameters.push({
      ...base,
      schema: content ? content.schema : param.schema,
      style,
      explode: typeof param.explode === 'boolean' ? param.explode : style === 'form',
      allowReserved: param.allowReserved === true,
      ...(content ? { contentType: content.mediaType } : {}),
    });
  }
  const key = parsePathKey(input.path);
  const params = bindKeyQuery(parameters, key);
  params.push(...undeclaredPathParameters(key.path, params));
  if (formFields.length > 0) body = swaggerFormBody(formFields, operation.consumes ?? root.consumes);
  if (dialect !== '2.0' && operation.requestBody !== undefined) {
    const requestBody = registry.deref(operation.requestBody);
    if (isPlainObject(requestBody)) {
      body = {
        required: requestBody.required === true,
        ...(typeof requestBody.description === 'string' ? { description: requestBody.description } : {}),
        media: mediaOf(requestBody.content),
      };
    }
  }
  return { parameters: params, ...(body ? { body } : {}), responses: normalizeResponses(input) };
}

// A template variable without a declared parameter would be sent as a literal `{x}` (`%7Bx%7D`): the
// call could never reach the operation. OpenAPI requires the declaration, so this is a document slip;
// the variable becomes a required string path parameter the caller can fill.
function undeclaredPathParameters(
  path: string,
  declared: readonly NormalizedParameter[],
): NormalizedParameter[] {
  const known = new Set(declared.filter((p) => p.in === 'path').map((p) => p.name));
  const added: NormalizedParameter[] = [];
  for (const [, name] of path.matchAll(/\{([^{}]+)\}/g)) {
    if (name === undefined || known.has(name)) continue;
    known.add(name);
    added.push({
      name,
      in: 'path',
      required: true,
      description: `Path segment {${name}} (the document does not declare this parameter)`,
      schema: { type: 'string' },
      style: 'simple',
      explode: false,
      allowReserved: false,
    });
  }
  return added;
}

function normalizeResponses(input: NormalizeInput): NormalizedOperation['responses'] {
  const { dialect, registry, root, operation } = input;
  if (!isPlainObject(operation.responses)) return [];
  const produces = (operation.produces ?? root.produces) as unknown;
  const types =
    Array.isArray(produces) && produces.length > 0 ? (produces as string[]) : ['application/json'];
  return Object.entries(operation.responses)
    .filter(([status]) => /^([1-5][0-9X]{2}|default)$/i.test(status))
    .map(([status, raw]) => {
      const response = registry.deref(raw);
      if (!isPlainObject(response)) return { status, media: [] };
      if (dialect === '2.0') {
        return {
          status,
          media:
            response.schema === undefined
              ? []
              : types.map((mediaType) => ({ mediaType, schema: response.schema })),
        };
      }
      return { status, media: mediaOf(response.content) };
    });
}
