import { defineRoute, markdownAnswer, queryParams, textAnswer } from '../route';

/** The query of `GET /environment/types`: whole services, `<serviceId>.<toolId>` tools, stubs by name, a budget. */
export interface TypesQuery {
  /** Service ids. */
  services?: string[];
  /** `<serviceId>.<toolId>` names. */
  tools?: string[];
  /** The names of stubs (`CyrnelStub<"stripe.customer">`) whose types to declare. */
  types?: string[];
  /** Bytes per tool and type asked for (an integer; default 4096 for a selection, none for the whole catalog). */
  maxBytes?: string;
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
    summary: 'TypeScript declarations of every enabled tool, or of a selection within a budget',
    params: {},
    // Lists comma separated or repeated; services and tools their union, none of the three: the
    // whole catalog. A selection is bounded by maxBytes per tool and type asked for: beyond it
    // nested objects and shared schemas are stubs (`CyrnelStub<"<name>">`) asked for with `types`.
    query: queryParams<TypesQuery>(
      {
        services: { type: 'list' },
        tools: { type: 'list' },
        types: { type: 'list' },
        maxBytes: { type: 'string' },
      },
      'ignored',
    ),
    answer: textAnswer(),
    // Names that are not enabled services or tools are a 400 listing them.
    reasons: ['invalid_request', 'module_unavailable', 'upstream_failed'],
  }),
};
