import type { AnswerOf, API_ROUTES, BodyOf, ParamsOf, QueryOf, Route } from '@cyrnel/sdk/api';
import type { Context } from 'hono';
import type { AppEnv, Caller } from '../app-env';

/** What a handler is given: the route's parameters, query and body, read as its entry declares. */
export interface HandlerInput<R extends Route> {
  /** Path parameters (a process id already a number). */
  readonly params: ParamsOf<R>;
  /** The query, parsed (`limit` defaulted); `undefined` when the route takes none. */
  readonly query: QueryOf<R>;
  /** The JSON body, checked against the entry's fields unless the host checks it (see {@link hostValidates}). */
  readonly body: BodyOf<R>;
  /** Who is asking. */
  readonly caller: Caller;
}

/**
 * Does one route's work: answers its value (rendered as the entry's answer says) or, for an event
 * stream, the response itself.
 */
export type Handle<R extends Route> = (
  input: HandlerInput<R>,
  c: Context<AppEnv>,
) => Promise<AnswerOf<R> | Response>;

/** A handler whose route's body is handed on as read: the host checks it against the same schema. */
export interface HostValidated<R extends Route> {
  readonly hostValidates: Handle<R>;
}

/** The handler of one route. */
export type RouteHandler<R extends Route> = Handle<R> | HostValidated<R>;

/** One handler per route of a resource. */
export type RouteHandlers<T extends Readonly<Record<string, Route>>> = {
  readonly [K in keyof T]: RouteHandler<T[K]>;
};

/** One handler per route of `API_ROUTES`. */
export type ApiHandlers = {
  readonly [G in keyof typeof API_ROUTES]: RouteHandlers<(typeof API_ROUTES)[G]>;
};

/**
 * Mark a handler whose host call validates the body itself (with `validateBody` and the entry's
 * schema), so that every front end of the host gets the same answers: the route does not check it
 * first.
 *
 * @example
 * ```ts
 * create: hostValidates(async ({ body }) => keys.create(body)),
 * ```
 */
export function hostValidates<R extends Route>(handle: Handle<R>): HostValidated<R> {
  return { hostValidates: handle };
}
