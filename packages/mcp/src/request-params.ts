import { type StandardSchemaV1, specTypeSchemas } from '@modelcontextprotocol/server';

/**
 * The requests this server answers, each with the SDK's own schema of it (the protocol's types).
 * The SDK validates them too, but answers a failure as `-32603 Internal error` with the validator's
 * whole report; checked here first, a client gets `-32602` and one line. Methods not listed are
 * left to the SDK, which answers `-32601` for those it does not serve.
 */
const SERVED: Readonly<Record<string, StandardSchemaV1>> = {
  initialize: specTypeSchemas.InitializeRequest,
  ping: specTypeSchemas.PingRequest,
  'server/discover': specTypeSchemas.DiscoverRequest,
  'subscriptions/listen': specTypeSchemas.SubscriptionsListenRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'tools/call': specTypeSchemas.CallToolRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
  'resources/read': specTypeSchemas.ReadResourceRequest,
};

/** The lists this server answers: whole unless the server says it pages them (no cursor was ever given out). */
const LISTS = new Set(['tools/list', 'resources/list', 'resources/templates/list']);

const MAX_MESSAGE = 200;

/** Code mode's lists: every one of them whole. */
const NO_PAGED_LISTS: ReadonlySet<string> = new Set();

/** A JSON-RPC request as read off the wire, before any validation. */
interface RawRequest {
  readonly method: string;
  readonly params?: unknown;
}

/** `params.uri` → `uri`; an issue of `params` itself → `params`. */
function pathOf(issue: StandardSchemaV1.Issue): string {
  const keys = (issue.path ?? []).map((segment) =>
    typeof segment === 'object' ? String(segment.key) : String(segment),
  );
  const inParams = keys[0] === 'params' && keys.length > 1 ? keys.slice(1) : keys;
  return inParams.length > 0 ? inParams.join('.') : 'params';
}

/** `Invalid input: expected string, received undefined` → `expected string, received undefined`. */
function whatOf(issue: StandardSchemaV1.Issue): string {
  return issue.message === 'Invalid input' ? 'invalid value' : issue.message.replace(/^Invalid input: /, '');
}

/**
 * Why the params of a request this server answers are invalid, in one line
 * (`Invalid params of resources/read: uri: expected string, received undefined`), or undefined
 * when they are valid or the method is not one it answers. A `cursor` is refused unless the
 * server pages that list (`pagedLists`): a list of one page never handed one out.
 *
 * @example
 * ```ts
 * invalidParams({ method: 'initialize', params: {} }); // 'Invalid params of initialize: protocolVersion: expected string, received undefined'
 * invalidParams({ method: 'tools/list', params: { cursor: 'x' } }); // 'Invalid params of tools/list: cursor: not a cursor this server gave (its lists have one page)'
 * ```
 */
export function invalidParams(
  request: RawRequest,
  pagedLists: ReadonlySet<string> = NO_PAGED_LISTS,
): string | undefined {
  const schema = SERVED[request.method];
  if (schema === undefined) return undefined;
  const checked = schema['~standard'].validate({ method: request.method, params: request.params });
  // The SDK's schemas are synchronous (zod); a promise would mean a schema this check cannot use.
  if (checked instanceof Promise) return undefined;
  const [issue] = checked.issues ?? [];
  let problem: string | undefined;
  if (issue !== undefined) problem = `${pathOf(issue)}: ${whatOf(issue)}`;
  else if (
    LISTS.has(request.method) &&
    !pagedLists.has(request.method) &&
    (request.params as { cursor?: unknown })?.cursor !== undefined
  )
    problem = 'cursor: not a cursor this server gave (its lists have one page)';
  if (problem === undefined) return undefined;
  return `Invalid params of ${request.method}: ${problem}`.slice(0, MAX_MESSAGE);
}
