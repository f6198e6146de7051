import type { McpBackend } from './mcp-backend';

/** The rules of the runtime every description of `execute_typescript` starts with. */
const RUNTIME_RULES = `Runs TypeScript in an isolated sandbox and returns what the code passed to cyrnel.output(), with stdout, stderr and the tool calls it made.

Rules of the runtime:
- Top-level await works; the code is the body of an async function.
- The only way out is the tools: await cyrnel.services.<serviceId>.tools.<toolId>.invoke(parameters). There is no fetch, no network, no file system, no process.
- Only data passed to cyrnel.output(object) comes back; several calls merge their objects. console.log goes to stdout.
- Inside the code, cyrnel.discover.services(), cyrnel.discover.tools({ query }) and cyrnel.discover.tool(serviceId, toolId) find tools at run time.
- A tool call that fails throws an error with a code and reason; catch it to continue.
- timeoutMs bounds the run (default set by the server); waitMs bounds how long this call waits for it. If the run is not finished by then, the result says so and gives processId: call get_process to wait again.
- The operator's policies may make a tool call wait for a person's approval (commonly the calls that change something). The run then pauses (state "waiting", its deadline paused) and this call answers with the approvalId and the link where a person approves or denies it: tell the user, then call wait_process with the processId. When your client can show forms and your key may approve, the person is asked right in the client instead and the run goes on. A denied call throws (reason approval_denied), an unanswered one expires (approval_expired), a blocked tool throws tool_blocked.`;

/** Catalogs with at most this many tools get their declarations in the description, by default. */
export const INLINE_TYPES_UP_TO = 30;

/** The description of `execute_typescript`: the rules, the services, and the declarations when few. */
export async function executeDescription(backend: McpBackend, inlineUpTo: number): Promise<string> {
  const services = await backend.services().catch(() => undefined);
  if (!services)
    return `${RUNTIME_RULES}\n\nThe enabled services could not be listed now: use search_tools to find tools.`;
  const total = services.reduce((sum, service) => sum + service.toolCount, 0);
  const list =
    services.length === 0
      ? 'No service is enabled yet: the code can only compute and print.'
      : `Enabled services (${total} tools):\n${services.map((s) => `- ${s.id}: ${s.name}${s.description ? ` — ${s.description.split('\n')[0]?.slice(0, 160)}` : ''} (${s.toolCount} tools)`).join('\n')}`;
  const types =
    total > 0 && total <= inlineUpTo
      ? `\n\nDeclarations of every tool:\n\`\`\`ts\n${await backend.environment.types()}\n\`\`\``
      : total > inlineUpTo
        ? '\n\nUse search_tools and get_tool_types first to see the exact parameters of the tools you need.'
        : '';
  return `${RUNTIME_RULES}\n\n${list}${types}`;
}
