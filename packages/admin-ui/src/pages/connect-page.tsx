/** `#/connect`: MCP client configurations and a `@cyrnel/client` snippet for this server's URL. */
export function ConnectPage() {
  const origin = location.origin;
  const http = JSON.stringify(
    { mcpServers: { cyrnel: { url: `${origin}/mcp`, headers: { Authorization: 'Bearer cyk_…' } } } },
    null,
    2,
  );
  const stdio = JSON.stringify(
    {
      mcpServers: {
        cyrnel: {
          command: 'npx',
          args: ['-y', '@cyrnel/server', 'mcp'],
          env: { CYRNEL_URL: origin, CYRNEL_API_KEY: 'cyk_…' },
        },
      },
    },
    null,
    2,
  );
  const tools = `# OpenAI Codex, ~/.codex/config.toml (the key in CYRNEL_API_KEY)
[mcp_servers.cyrnel]
url = "${origin}/mcp/tools"
bearer_token_env_var = "CYRNEL_API_KEY"`;
  const client = `import { createClient } from '@cyrnel/client';

const client = createClient({ baseUrl: '${origin}', apiKey: process.env.CYRNEL_API_KEY });
const { output } = await client.processes.run("cyrnel.output({ ok: true })", { throwOnFailure: true });`;
  return (
    <>
      <h1>Connect</h1>
      <h2>MCP over HTTP (Claude Code, Cursor, VS Code)</h2>
      <pre>{http}</pre>
      <h2>MCP over stdio (Claude Desktop)</h2>
      <pre>{stdio}</pre>
      <h2>Direct tools (clients with their own code mode: Codex, the AI SDK, opencode, goose)</h2>
      <p>
        Every tool the key may call as an MCP tool of its own, <code>&lt;service&gt;__&lt;tool&gt;</code>, at{' '}
        <code>{`${origin}/mcp/tools`}</code> (same keys as <code>/mcp</code>), or on stdio with{' '}
        <code>cyrnel-server mcp --tools</code>.
      </p>
      <pre>{tools}</pre>
      <h2>@cyrnel/client</h2>
      <pre>{client}</pre>
    </>
  );
}
