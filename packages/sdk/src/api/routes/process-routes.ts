import type { PlanResponse } from '../approvals';
import { CREATE_PROCESS_BODY, EMPTY_BODY, RUN_PROCESS_BODY } from '../body-fields';
import type { ListResponse } from '../lists';
import type {
  CreateProcessRequest,
  CreateProcessResponse,
  ProcessCallsResponse,
  ProcessListQuery,
  ProcessOutput,
  ProcessRecord,
  ProcessSummary,
  RunProcessRequest,
  TypeCheckResponse,
} from '../processes';
import { object, page, ref } from '../record-schemas';
import {
  defineRoute,
  eventStream,
  jsonAnswer,
  noContent,
  objectBody,
  PAGE_QUERY,
  PROCESS_ID,
  queryParams,
  textAnswer,
} from '../route';

/** The filters of `GET /processes`; the host checks their values (`state`, `exitState` name states). */
export const PROCESS_LIST_QUERY = {
  ...PAGE_QUERY,
  state: { type: 'string' },
  exitState: { type: 'string' },
  ref: { type: 'string' },
  keyId: { type: 'string' },
} as const;

const params = { id: PROCESS_ID };
/**
 * Starting a run: a slot among the live processes (the key's and everyone's) and an environment,
 * within the key's request rate and its quota of stored bytes.
 */
const START = [
  'too_many_processes',
  'rate_limited',
  'storage_quota_exceeded',
  'module_unavailable',
  'shutting_down',
] as const;

/**
 * `/processes`: submitted code, its results and events. Agent keys may use every route here, on
 * the processes they created (another key's process is a 404, like an unknown id).
 */
export const PROCESS_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/processes',
    role: 'agent',
    summary: 'List processes, newest first',
    params: {},
    query: queryParams<ProcessListQuery>(PROCESS_LIST_QUERY),
    answer: jsonAnswer<ListResponse<ProcessSummary>>(page('ProcessSummary')),
    reasons: [],
  }),
  create: defineRoute({
    method: 'POST',
    path: '/processes',
    role: 'agent',
    summary:
      'Create (and start) a process; with `wait: true` the answer is its result; with `plan: true` its plan, with `check: true` its type errors, without running',
    params: {},
    // `wait` is the route's own field; the host takes the rest.
    body: objectBody<CreateProcessRequest>({ ...CREATE_PROCESS_BODY, wait: { type: 'boolean' } }),
    answer: jsonAnswer<CreateProcessResponse | PlanResponse | TypeCheckResponse>(
      {
        anyOf: [ref('ProcessResult'), ref('ProcessRecord'), ref('PlanResponse'), ref('TypeCheckResponse')],
      },
      201,
    ),
    reasons: [
      ...START,
      'wait_timeout',
      'key_revoked',
      'plan_mismatch',
      'approval_not_found',
      'type_error',
      'upstream_failed',
    ],
  }),
  get: defineRoute({
    method: 'GET',
    path: '/processes/:id',
    role: 'agent',
    summary: 'One process',
    params,
    answer: jsonAnswer<ProcessRecord>(ref('ProcessRecord')),
    reasons: ['process_not_found'],
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/processes/:id',
    role: 'agent',
    summary: 'Delete an idle process and its results',
    params,
    answer: noContent(),
    reasons: ['process_not_found', 'process_not_idle'],
  }),
  code: defineRoute({
    method: 'GET',
    path: '/processes/:id/code',
    role: 'agent',
    summary: "The process's code",
    params,
    answer: textAnswer(),
    reasons: ['process_not_found'],
  }),
  stdout: defineRoute({
    method: 'GET',
    path: '/processes/:id/stdout',
    role: 'agent',
    summary: 'Everything written to stdout',
    params,
    answer: textAnswer(),
    reasons: ['process_not_found', 'process_not_idle'],
  }),
  stderr: defineRoute({
    method: 'GET',
    path: '/processes/:id/stderr',
    role: 'agent',
    summary: 'Everything written to stderr',
    params,
    answer: textAnswer(),
    reasons: ['process_not_found', 'process_not_idle'],
  }),
  output: defineRoute({
    method: 'GET',
    path: '/processes/:id/output',
    role: 'agent',
    summary: 'The merged `cyrnel.output` object',
    params,
    answer: jsonAnswer<ProcessOutput>({ type: 'object' }),
    reasons: ['process_not_found', 'process_not_idle'],
  }),
  calls: defineRoute({
    method: 'GET',
    path: '/processes/:id/calls',
    role: 'agent',
    summary: 'The tool calls of the last run',
    params,
    answer: jsonAnswer<ProcessCallsResponse>(
      object(['items'], { items: { type: 'array', items: ref('ToolCallRecord') } }),
    ),
    reasons: ['process_not_found'],
  }),
  events: defineRoute({
    method: 'GET',
    path: '/processes/:id/events',
    role: 'agent',
    summary: 'Server-sent events: state, stdout, stderr, output, exit',
    params,
    answer: eventStream(),
    reasons: ['process_not_found', 'too_many_streams'],
  }),
  start: defineRoute({
    method: 'POST',
    path: '/processes/:id/signals/run',
    role: 'agent',
    summary: 'Run an idle process again (`force` replaces earlier results)',
    params,
    body: objectBody<RunProcessRequest>(RUN_PROCESS_BODY, { optional: true }),
    answer: jsonAnswer<ProcessRecord>(ref('ProcessRecord')),
    reasons: ['process_not_found', 'process_not_idle', 'process_has_results', ...START],
  }),
  kill: defineRoute({
    method: 'POST',
    path: '/processes/:id/signals/kill',
    role: 'agent',
    summary: 'Kill a queued or running process',
    params,
    body: objectBody<Record<string, never>>(EMPTY_BODY, { optional: true }),
    answer: jsonAnswer<ProcessRecord>(ref('ProcessRecord')),
    reasons: ['process_not_found', 'process_not_running'],
  }),
};
