import type { JSONSchema } from '../json-schema';
import type { BodyFields, BodySchema } from './body-fields';
import type { ErrorReason } from './errors';

/** The HTTP methods of the API. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: anyone, without a key (`none`); any key (`agent`); an `approver` or an
 * `admin` key (`approver`); an `admin` key only (`admin`). An agent key acts only on its own
 * processes.
 */
export type RouteRole = 'none' | 'agent' | 'approver' | 'admin';

/**
 * The TypeScript type a part of a route carries for the types derived from the table
 * ({@link ParamsOf}, {@link QueryOf}, {@link BodyOf}, {@link AnswerOf}). Never set at runtime.
 */
export interface Typed<T> {
  readonly '~type'?: T;
}

/** A path parameter. */
export interface RouteParam<T extends string | number> extends Typed<T> {
  /** Its JSON Schema, as documented. */
  readonly schema: JSONSchema;
  /** A malformed value is refused (400 `invalid_request`) rather than only not found. */
  readonly checked: boolean;
}

/** A process id: a positive integer (400 otherwise). */
export const PROCESS_ID: RouteParam<number> = { schema: { type: 'integer', minimum: 1 }, checked: true };
/** A service, tool or module id, checked by the host (a service id must be an identifier). */
export const CHECKED_ID: RouteParam<string> = { schema: { type: 'string' }, checked: true };
/** An approval's or a plan's id: looked up only. */
export const APPROVAL_ID: RouteParam<string> = { schema: { type: 'string' }, checked: false };
/** An id that is only looked up (an API key's). */
export const PLAIN_ID: RouteParam<string> = { schema: { type: 'string' }, checked: false };

/**
 * How one query parameter is read: a non-empty string, `true`/`false`, a page size (default 20,
 * clamped to 100), a list (comma separated or repeated), a whole number (`0` or more, at most
 * `Number.MAX_SAFE_INTEGER`), or a switch (`true` or `1`, `false` or `0`: `?follow=1`).
 */
export type QueryParamSpec =
  | { readonly type: 'string' }
  | { readonly type: 'boolean' }
  | { readonly type: 'limit' }
  | { readonly type: 'list' }
  | { readonly type: 'integer' }
  | { readonly type: 'switch' };

/** The query parameters of a route. */
export type QuerySchema = Readonly<Record<string, QueryParamSpec>>;

/** The query of a route. */
export interface RouteQuery<Q> extends Typed<Q> {
  /** Every parameter it reads. */
  readonly params: QuerySchema;
  /** `refused` (default): any other parameter, or one given twice, is a 400. `ignored`: left alone. */
  readonly others?: 'refused' | 'ignored';
}

/** The request body of a route: a flat JSON object (`fields`) or another JSON value (`schema`). */
export interface RouteBody<B> extends Typed<B> {
  /** The fields of a JSON object body; any other field is refused. */
  readonly fields?: BodySchema;
  /** The JSON Schema of a body that is not a flat object (a JSON Patch array). */
  readonly schema?: JSONSchema;
  /** An empty request body reads as `{}` (no field is required). */
  readonly optional: boolean;
}

/** How a route answers on success: JSON, plain text, Markdown, Server-Sent Events or nothing. */
export type AnswerMedia = 'json' | 'text' | 'markdown' | 'events' | 'none';

/** The success answer of a route. */
export interface RouteAnswer<A> extends Typed<A> {
  /** The success status. */
  readonly status: 200 | 201 | 204;
  /** What the body is. */
  readonly media: AnswerMedia;
  /** The JSON Schema of a JSON answer (`$ref`s name `RECORD_SCHEMAS`). */
  readonly schema?: JSONSchema;
  /**
   * A JSON answer that is followed live on request: asked with `Accept: text/event-stream` (or the
   * route's `follow` query switch), the route answers Server-Sent Events instead.
   */
  readonly followable?: boolean;
}

/**
 * One HTTP route, described once: the server's handler, its role check, the OpenAPI document and
 * the client's types all come from it.
 */
export interface Route {
  /** The HTTP method (`GET` answers `HEAD` too). */
  readonly method: RouteMethod;
  /** The path with `:name` parameters, e.g. `/services/:serviceId/refresh`. */
  readonly path: string;
  /** Who may call it. */
  readonly role: RouteRole;
  /** One line for people. */
  readonly summary: string;
  /** Every `:name` of the path. */
  readonly params: Readonly<Record<string, RouteParam<string> | RouteParam<number>>>;
  /** Its query parameters, when it takes any. */
  readonly query?: RouteQuery<unknown>;
  /** Its request body, when it reads one. */
  readonly body?: RouteBody<unknown>;
  /** What it answers on success. */
  readonly answer: RouteAnswer<unknown>;
  /**
   * The reasons only this route's work can answer (the host's). What every route with a key, a
   * body, a query or a checked parameter can answer is added by `routeReasons`.
   */
  readonly reasons: readonly ErrorReason[];
}

/** The names of a path's `:name` parameters. */
export type PathParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The params a route's path asks for, and no other. */
type ParamsMatchPath<R extends Route> = {
  readonly params: { readonly [K in PathParamNames<R['path']>]: RouteParam<string> | RouteParam<number> } & {
    readonly [K in Exclude<keyof R['params'], PathParamNames<R['path']>>]: never;
  };
};

/**
 * Declare a route; its literal type is kept so that the types below can be derived from it, and
 * its `params` must name exactly the path's parameters.
 *
 * @example
 * ```ts
 * const get = defineRoute({ method: 'GET', path: '/services/:serviceId', role: 'admin',
 *   summary: 'One service', params: { serviceId: CHECKED_ID },
 *   answer: jsonAnswer<ServiceDetail>({ $ref: '#/components/schemas/ServiceDetail' }), reasons: ['service_not_found'] });
 * ```
 */
export function defineRoute<const R extends Route>(route: R & ParamsMatchPath<R>): R {
  return route;
}

/** The values of a route's path parameters. */
export type ParamsOf<R extends Route> = {
  -readonly [K in keyof R['params']]: R['params'][K] extends RouteParam<infer T> ? T : never;
};
/** The query of a route (`undefined` when it takes none). */
export type QueryOf<R extends Route> = R extends { readonly query: RouteQuery<infer Q> } ? Q : undefined;
/** The body of a route (`undefined` when it takes none). */
export type BodyOf<R extends Route> = R extends { readonly body: RouteBody<infer B> } ? B : undefined;
/** What a route answers on success (`void` for 204, `string` for text, `never` for event streams). */
export type AnswerOf<R extends Route> = R['answer'] extends RouteAnswer<infer A> ? A : never;

/** A JSON answer. */
export const jsonAnswer = <A>(schema: JSONSchema, status: 200 | 201 = 200): RouteAnswer<A> => ({
  status,
  media: 'json',
  schema,
});
/**
 * A JSON answer that can also be followed as Server-Sent Events (see {@link RouteAnswer.followable}).
 *
 * @example
 * ```ts
 * const answer = followableAnswer<LogsResponse>(object(['items'], { items: { type: 'array' } }));
 * ```
 */
export const followableAnswer = <A>(schema: JSONSchema): RouteAnswer<A> => ({
  status: 200,
  media: 'json',
  schema,
  followable: true,
});
/** A `text/plain` answer. */
export const textAnswer = (): RouteAnswer<string> => ({ status: 200, media: 'text' });
/** A `text/markdown` answer. */
export const markdownAnswer = (): RouteAnswer<string> => ({ status: 200, media: 'markdown' });
/** A `text/event-stream` answer, read event by event. */
export const eventStream = (): RouteAnswer<never> => ({ status: 200, media: 'events' });
/** A 204 answer without a body. */
export const noContent = (): RouteAnswer<void> => ({ status: 204, media: 'none' });

/**
 * A JSON object body of type `B` with these fields (each property of `B` a field of its JSON type,
 * required alike); `optional`: an empty body reads as `{}`.
 */
export const objectBody = <B>(schema: BodyFields<B>, options: { optional?: boolean } = {}): RouteBody<B> => ({
  fields: schema as BodySchema,
  optional: options.optional ?? false,
});
/** A JSON body that is not a flat object, with its JSON Schema. */
export const jsonBody = <B>(schema: JSONSchema): RouteBody<B> => ({ schema, optional: false });
/** A route's query parameters. */
export const queryParams = <Q>(
  params: QuerySchema,
  others: 'refused' | 'ignored' = 'refused',
): RouteQuery<Q> => ({
  params,
  others,
});

/** The paging parameters of every list route. */
export const PAGE_QUERY = {
  limit: { type: 'limit' },
  cursor: { type: 'string' },
} as const satisfies QuerySchema;
