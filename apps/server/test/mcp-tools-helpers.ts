import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * A custom adapter whose definition is a JSON list of tool ids, each tool echoing its `text`
 * (`{ echoed }`, its output schema): tools with any identifier, to name direct tools that collide
 * (`x` + `y__z` and `x__y` + `z`), are too long, or carry a `$`.
 */
export const NAMES_ADAPTER = `
export default {
  configSchema: { type: 'object' },
  secretsSchema: { type: 'object' },
  instantiate() {
    return {
      async setup() {},
      async teardown() {},
      async generateDefinition(text) {
        return {
          name: 'Names', description: 'tools named by the definition',
          configSchema: { type: 'object' }, secretsSchema: { type: 'object' }, adapterDomain: {},
          tools: JSON.parse(text).map((id) => ({
            id, name: id, description: 'echoes its text',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            outputSchema: { type: 'object', properties: { echoed: { type: 'string' } }, required: ['echoed'] },
            annotations: { readOnly: true, openWorld: false },
            adapterDomain: {},
          })),
        };
      },
      async hydrateService() {},
      async dehydrateService() {},
      async invoke({ parameters }) {
        return { echoed: parameters.text };
      },
    };
  },
};
`;

/** A connected official v2 client of `<url>/mcp/tools`: `modern` negotiates 2026-07-28, `legacy` the 2025 handshake. */
export async function toolsClient(
  url: string,
  key: string,
  era: 'modern' | 'legacy' = 'modern',
  options: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client> {
  const client = new Client(
    { name: 'tools-test', version: '1.0.0' },
    { ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}), ...options },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp/tools`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** A connected 1.x client (`@modelcontextprotocol/sdk`) of `<url>/mcp/tools`. */
export async function toolsClientV1(url: string, key: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'tools-test-v1', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(`${url}/mcp/tools`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** Every tool, page by page, with the number of pages. */
export async function listPages<T extends { name: string } = Tool>(
  list: (cursor: string | undefined) => Promise<{ tools: T[]; nextCursor?: string | undefined }>,
): Promise<{ tools: T[]; pages: number }> {
  const tools: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list(cursor);
    tools.push(...page.tools);
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages < 100);
  return { tools, pages };
}

/** The text of a tool result's first content. */
export const textOf = (result: { content?: unknown }): string =>
  ((result.content as { text?: string }[] | undefined)?.[0]?.text ?? '') as string;
