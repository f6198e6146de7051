import {
  ERROR_REASONS,
  ERROR_STATUS,
  type ErrorReason,
  listRoutes,
  type OpenApiResponse,
  type QueryParamSpec,
  RECORD_SCHEMAS,
  type Route,
  type RouteBody,
  type RouteRole,
  routeReasons,
} from '@cyrnel/sdk/api';
import { bodyJsonSchema } from './body-json-schema';

type Json = Record<string, unknown>;

const MEDIA = {
  json: 'application/json',
  text: 'text/plain',
  markdown: 'text/markdown',
  events: 'text/event-stream',
} as const;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** Who may call a route with a key, by its role (an approver may use every agent route too). */
const WHO = {
  agent: 'Any key (agent, approver or admin).',
  approver: 'An approver or admin key (an agent key gets 403 `forbidden`).',
  admin: 'An admin key.',
} as const satisfies Record<Exclude<RouteRole, 'none'>, string>;

/** How each kind of query parameter reads, as a schema. */
const QUERY_SCHEMAS: Readonly<Record<QueryParamSpec['type'], Json>> = {
  string: { type: 'string' },
  list: { type: 'string' },
  boolean: { type: 'boolean' },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  integer: { type: 'integer', minimum: 0 },
  switch: { enum: ['true', 'false', '1', '0'] },
};

/** The path and query parameters of a route. */
function parameters(route: Route): Json[] {
  return [
    ...Object.entries(route.params).map(([name, param]) => ({
      name,
      in: 'path',
      required: true,
      schema: param.schema,
    })),
    ...Object.entries(route.query?.params ?? {}).map(([name, spec]) => ({
      name,
      in: 'query',
      required: false,
      schema: QUERY_SCHEMAS[spec.type],
    })),
  ];
}

const bodySchema = (body: RouteBody<unknown>): Json =>
  body.fields ? bodyJsonSchema(body.fields) : (body.schema as Json);

/** The error answers of a route: per status, the envelope with the reasons it can carry there. */
function errorResponses(route: Route): Json {
  const byStatus = new Map<number, ErrorReason[]>();
  for (const reason of routeReasons(route)) {
    const status = ERROR_STATUS[ERROR_REASONS[reason].code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), reason]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, reasons]) => [
        String(status),
        {
          description: `Reasons: ${reasons.join(', ')}`,
          content: {
            'application/json': {
              schema: { allOf: [ref('ErrorBody'), { properties: { reason: { enum: reasons } } }] },
            },
          },
        },
      ]),
  );
}

/** One operation of the document. */
function operation(route: Route, openPath: string): Json {
  const method = route.method.toLowerCase();
  const { status, media, schema, followable } = route.answer;
  const content =
    media === 'none'
      ? undefined
      : {
          [MEDIA[media]]: { schema: schema ?? { type: 'string' } },
          // Asked with `Accept: text/event-stream` (or `follow`), the same route streams.
          ...(followable ? { [MEDIA.events]: { schema: { type: 'string' } } } : {}),
        };
  const parameterList = parameters(route);
  return {
    summary: route.summary,
    operationId: `${method}${openPath.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    ...(route.role === 'none' ? { security: [] } : { description: WHO[route.role] }),
    ...(parameterList.length > 0 ? { parameters: parameterList } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.optional,
            content: { 'application/json': { schema: bodySchema(route.body) } },
          },
        }
      : {}),
    responses: {
      [String(status)]: { description: route.summary, ...(content ? { content } : {}) },
      ...errorResponses(route),
    },
  };
}

/**
 * cyrnel's HTTP API as an OpenAPI 3.1 document, generated from `API_ROUTES` of `@cyrnel/sdk/api`:
 * every route `createApp` mounts, who may call it, its parameters, its request body built from the
 * very schema that validates it, its answer, and per error status the reasons it can answer.
 * `GET /openapi.json` serves it.
 *
 * @example
 * ```ts
 * const document = openApiDocument('0.1.0');
 * document.paths['/services/{serviceId}'].get.summary; // 'One service with its schemas'
 * ```
 */
export function openApiDocument(
  version: string,
): OpenApiResponse & { paths: Record<string, Record<string, Json>> } {
  const paths: Record<string, Record<string, Json>> = {};
  for (const { route } of listRoutes()) {
    const openPath = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    paths[openPath] ??= {};
    (paths[openPath] as Record<string, Json>)[route.method.toLowerCase()] = operation(route, openPath);
  }
  const info = {
    title: 'cyrnel',
    version,
    description:
      'The HTTP API of a cyrnel server. Errors answer `{error, code, reason, details?}`; the reasons are stable.',
    license: { name: 'MIT', identifier: 'MIT' },
  };
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    // Relative: wherever the document is read from. `GET /openapi.json` names the server the
    // request reached instead (or the public URL it is given).
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (cyk_…) with its role, `admin`, `approver` or `agent`, or the bootstrap key (an admin)',
        },
      },
      schemas: RECORD_SCHEMAS,
    },
  };
}
