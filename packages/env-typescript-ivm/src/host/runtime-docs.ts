import { MAX_JSON_DEPTH } from '@cyrnel/sdk';
import { MAX_PENDING_CALLS } from '../shared/max-pending-calls';
import type { ResolvedConfig } from './config';

/** Markdown describing the sandbox runtime for models and people: rules, globals, limits, patterns. */
export function generateRuntimeDocs(config: ResolvedConfig): string {
  const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;
  return `# typescript-ivm runtime

Your code is TypeScript, run in a fresh V8 isolate (no type check). It is the body of an async function: use top-level \`await\`, and \`return\` ends the program early. There is no \`import\`, \`require\`, \`process\`, \`fetch\`, filesystem or network: the only way out is \`cyrnel\`.

## Globals
- \`await cyrnel.services.<serviceId>.tools.<toolId>.invoke(params)\` calls a tool and resolves with its result (a copy). Tools of HTTP services (OpenAPI) take their parameters in slots — \`{ path?, query?, headers?, cookies?, body? }\` — and resolve with \`{ status, headers, body }\`: a non-2xx answer is a normal result with that \`status\`, not an error, so check \`status\` before using \`body\`.
- \`await cyrnel.invoke(serviceId, toolId, params)\` is the same call by name (for ids chosen at run time).
- \`cyrnel.output(obj)\` merges a plain JSON object into the process result (shallow; later keys overwrite). Only what you output reaches the caller — keep intermediate data in variables.
- \`await cyrnel.discover.services({ query? })\`, \`await cyrnel.discover.tools({ query?, serviceId?, limit? })\`, \`await cyrnel.discover.tool(serviceId, toolId)\` (schemas and a TypeScript \`signature\`), \`await cyrnel.discover.types({ services?, tools? })\` (the declarations of whole services and/or \`'<serviceId>.<toolId>'\` tools, shared schemas as named types).
- \`console.log/info/debug\` write a line to stdout, \`console.warn/error\` to stderr (strings as is, other values as JSON).
- \`setTimeout\`/\`clearTimeout\`; timers still pending when your code finishes are dropped.

## Limits
- Time: the process timeout (default ${config.defaultTimeoutMs} ms) ends the run with \`timeout\`.
- Memory: ${config.memoryLimitMb} MB; exceeding it ends the run \`failed\`.
- stdout/stderr: ${kib(config.stdoutCapBytes)} / ${kib(config.stderrCapBytes)}, then truncated. Output: ${kib(config.outputCapBytes)} of JSON; \`cyrnel.output\` throws beyond it.
- Code size: set by the server (default 100 KiB).
- At most ${MAX_PENDING_CALLS} calls and timers pending at once (more reject / throw with code \`too_many_calls\`).
- Nesting: output values and call parameters at most ${MAX_JSON_DEPTH} levels of arrays and objects (deeper ones throw / reject with \`invalid_request\`).
- Awaiting a promise that nothing can settle (no call or timer pending) ends the run \`failed\` at once.
- Un-awaited calls are abandoned when the program finishes: always \`await\`.
- An uncaught error or an unhandled promise rejection ends the run \`failed\` with its message.

## Errors
\`invoke\` rejects when the call is refused or the service cannot be reached (transport failure, timeout) — not on a non-2xx answer. The \`Error\` carries \`message\`, \`status\` (400 invalid parameters, 404 unknown tool, 409 disabled, 429 too many pending calls, 503 unavailable, 502 the service failed), \`code\` and \`reason\` (what precisely went wrong, e.g. \`service_disabled\` or \`tool_disabled\`: branch on it, not on the message).

## Example
\`\`\`ts
try {
  const user = await cyrnel.services.crm.tools.getUser.invoke({ path: { id: 42 } });
  if (user.status !== 200) throw new Error(\`getUser answered \${user.status}\`);
  const orders = await cyrnel.services.shop.tools.listOrders.invoke({ query: { email: user.body.email } });
  if (orders.status !== 200) throw new Error(\`listOrders answered \${orders.status}\`);
  cyrnel.output({ openOrders: orders.body.filter((o) => o.state === 'open').length });
} catch (err: any) {
  cyrnel.output({ error: err.message, status: err.status });
}
\`\`\`
`;
}
