import { ENABLED_BODY } from '../body-fields';
import type { SetEnabledRequest } from '../common';
import type { ListResponse } from '../lists';
import { page, ref } from '../record-schemas';
import {
  CHECKED_ID,
  defineRoute,
  jsonAnswer,
  markdownAnswer,
  objectBody,
  PAGE_QUERY,
  queryParams,
} from '../route';
import type { CatalogVersionResponse, ToolDetail, ToolListQuery, ToolRecord } from '../tools';

/** The filters of `GET /tools` (`query` makes it the ranked search). */
export const TOOL_LIST_QUERY = {
  ...PAGE_QUERY,
  serviceId: { type: 'string' },
  query: { type: 'string' },
  enabled: { type: 'boolean' },
  effectivePolicy: { type: 'string' },
} as const;

const params = { serviceId: CHECKED_ID, toolId: CHECKED_ID };

/** `/tools`: the tools of the installed services, what agents read before writing code. */
export const TOOL_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/tools',
    role: 'agent',
    summary: 'Ranked tool search and list',
    params: {},
    query: queryParams<ToolListQuery>(TOOL_LIST_QUERY),
    answer: jsonAnswer<ListResponse<ToolRecord>>(page('ToolRecord')),
    reasons: ['service_not_found'],
  }),
  version: defineRoute({
    method: 'GET',
    path: '/tools/version',
    role: 'agent',
    summary: "The catalog's version: it changes whenever what agents can call changes",
    params: {},
    answer: jsonAnswer<CatalogVersionResponse>({
      type: 'object',
      properties: { version: { type: 'string' } },
      required: ['version'],
      additionalProperties: false,
    }),
    reasons: [],
  }),
  get: defineRoute({
    method: 'GET',
    path: '/tools/:serviceId/:toolId',
    role: 'agent',
    summary: 'One tool with its schemas',
    params,
    answer: jsonAnswer<ToolDetail>(ref('ToolDetail')),
    reasons: ['service_not_found', 'tool_not_found'],
  }),
  docs: defineRoute({
    method: 'GET',
    path: '/tools/:serviceId/:toolId/docs',
    role: 'agent',
    summary: "The tool's Markdown docs",
    params,
    answer: markdownAnswer(),
    // The active environment renders them.
    reasons: ['service_not_found', 'tool_not_found', 'module_unavailable', 'upstream_failed'],
  }),
  setEnabled: defineRoute({
    method: 'POST',
    path: '/tools/:serviceId/:toolId/enabled',
    role: 'admin',
    summary: 'Enable or disable one tool',
    params,
    body: objectBody<SetEnabledRequest>(ENABLED_BODY),
    answer: jsonAnswer<ToolDetail>(ref('ToolDetail')),
    reasons: ['service_not_found', 'tool_not_found'],
  }),
};
