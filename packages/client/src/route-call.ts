import type { AnswerOf, BodyOf, ParamsOf, QueryOf, Route } from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { Transport } from './transport';

/** The arguments of one route's request, typed by its entry: path parameters, query, body. */
export type RouteInput<R extends Route> = (keyof ParamsOf<R> extends never
  ? { readonly params?: undefined }
  : { readonly params: ParamsOf<R> }) & {
  readonly query?: QueryOf<R> | undefined;
  readonly body?: BodyOf<R> | undefined;
};

/** Sends one route's request and reads its answer as the entry says (JSON, text, nothing). */
export type RouteCaller = <R extends Route>(
  route: R,
  input: RouteInput<R>,
  options?: RequestOptions,
) => Promise<AnswerOf<R>>;

/**
 * The path of a route with its parameters filled in, each percent-encoded, so an id can never
 * smuggle a `/`, `?` or `#` into it: `/tools/:serviceId/:toolId` → `/tools/a%2Fb/c`.
 */
export function routePath(route: Route, params: Readonly<Record<string, string | number>> = {}): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
}

/**
 * The caller the resource groups share: each request's method and path come from the route's
 * entry in `API_ROUTES`, its answer is read by the entry's media.
 *
 * @example
 * ```ts
 * const call = createRouteCaller(transport);
 * const { changed } = await call(API_ROUTES.services.refresh, { params: { serviceId: 'memory' } });
 * ```
 */
export function createRouteCaller(transport: Transport): RouteCaller {
  return <R extends Route>(route: R, input: RouteInput<R>, options?: RequestOptions) => {
    const request = {
      method: route.method,
      path: routePath(route, input.params as Record<string, string | number> | undefined),
      query: input.query as object | undefined,
      ...(input.body === undefined ? {} : { body: input.body }),
      options,
    };
    switch (route.answer.media) {
      case 'json':
        return transport.json<AnswerOf<R>>(request);
      case 'text':
      case 'markdown':
        return transport.text(request) as Promise<AnswerOf<R>>;
      case 'none':
        return transport.empty(request) as Promise<AnswerOf<R>>;
      case 'events':
        throw new TypeError(
          `${route.method} ${route.path} is an event stream: read it with transport.stream`,
        );
    }
  };
}
