import { defineRoute, markdownAnswer, queryParams, textAnswer } from '../route';

/** The query of `GET /environment/types`: whole services and `<serviceId>.<toolId>` tools. */
export interface TypesQuery {
  /** Service ids. */
  services?: string[];
  /** `<serviceId>.<toolId>` names. */
  tools?: string[];
}

/** `/environment`: the active environment's docs and type declarations. */
export const ENVIRONMENT_ROUTES = {
  docs: defineRoute({
    method: 'GET',
    path: '/environment/docs',
    role: 'agent',
    summary: "The active environment's runtime docs (Markdown)",
    params: {},
    answer: markdownAnswer(),
    reasons: ['module_unavailable', 'upstream_failed'],
  }),
  types: defineRoute({
    method: 'GET',
    path: '/environment/types',
    role: 'agent',
    summary: 'TypeScript declarations of every enabled tool, or of a selection',
    params: {},
    // Comma separated or repeated; the union of both lists, none: the whole catalog.
    query: queryParams<TypesQuery>({ services: { type: 'list' }, tools: { type: 'list' } }, 'ignored'),
    answer: textAnswer(),
    // Names that are not enabled services or tools are a 400 listing them.
    reasons: ['invalid_request', 'module_unavailable', 'upstream_failed'],
  }),
};
