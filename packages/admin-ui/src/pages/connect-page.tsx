import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { KEY_STORAGE } from '../components/use-client';

/** A command and its arguments, as an MCP client's configuration takes them. */
interface InstallCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** `GET /server` (the server binary's, admin keys only): its version and how it was installed. */
interface ServerAbout {
  readonly version: string;
  readonly install: {
    readonly kind: 'checkout' | 'npx' | 'package' | 'unknown';
    readonly path: string | null;
    readonly mcp: InstallCommand | null;
  };
}

/** The ways to run the stdio bridge, each for one way of installing cyrnel. */
const BRIDGES: readonly { readonly kind: string; readonly label: string; readonly bridge: InstallCommand }[] =
  [
    {
      kind: 'checkout',
      label:
        'From a checkout of the repository (scripts/mcp.sh builds the server first when it is not built)',
      bridge: { command: 'bash', args: ['/path/to/cyrnel/scripts/mcp.sh'] },
    },
    {
      kind: 'tarballs',
      label:
        'From tarballs packed by the repository’s scripts/pack.sh, before the packages are on the npm registry (pack.sh prints this line with every tarball’s path)',
      bridge: {
        command: 'npx',
        args: [
          '-y',
          '--package=<dir>/cyrnel-server-<version>.tgz',
          '--package=<every tarball it needs>…',
          'cyrnel-server',
          'mcp',
        ],
      },
    },
    {
      kind: 'published',
      label: 'Once @cyrnel/server is published on the npm registry',
      bridge: { command: 'npx', args: ['-y', '@cyrnel/server', 'mcp'] },
    },
  ];

/** Where this server runs from, in words. */
function describeInstall({ kind, path }: ServerAbout['install']): string {
  return kind === 'checkout'
    ? `a checkout of the repository at ${path}`
    : kind === 'npx'
      ? `npx (npm's cache at ${path}): the bridge is npx with the same packages`
      : kind === 'package'
        ? `an npm install at ${path}: the bridge is the Node.js running the server with its cli.js`
        : 'files the server cannot place (not a checkout, not an npm install)';
}

/** `GET /server` with the tab's key: undefined while asked, null when not told (a key that is no admin's). */
function useServerAbout(): ServerAbout | null | undefined {
  const [about, setAbout] = useState<ServerAbout | null | undefined>();
  useEffect(() => {
    const key = sessionStorage.getItem(KEY_STORAGE);
    fetch(new URL('/server', location.origin), { headers: key ? { authorization: `Bearer ${key}` } : {} })
      .then(async (response) => (response.ok ? ((await response.json()) as ServerAbout) : null))
      .catch(() => null)
      .then(setAbout);
  }, []);
  return about;
}

/**
 * `#/connect`: MCP client configurations and a `@cyrnel/client` snippet for this server's URL;
 * the stdio bridge's command for the installation this server runs from (`GET /server`), and for
 * the other ways to install.
 */
export function ConnectPage() {
  const origin = location.origin;
  const about = useServerAbout();
  const http = JSON.stringify(
    { mcpServers: { cyrnel: { url: `${origin}/mcp`, headers: { Authorization: 'Bearer cyk_…' } } } },
    null,
    2,
  );
  const stdio = (bridge: InstallCommand) =>
    JSON.stringify(
      {
        mcpServers: {
          cyrnel: { ...bridge, env: { CYRNEL_URL: origin, CYRNEL_API_KEY: 'cyk_…' } },
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
  const own = about?.install.mcp;
  return (
    <>
      <h1>Connect</h1>
      <h2>MCP over HTTP (Claude Code, Cursor, VS Code)</h2>
      <pre>{http}</pre>
      <h2>MCP over stdio (Claude Desktop)</h2>
      <p data-testid="install">
        {about === undefined
          ? 'Asking the server how it was installed…'
          : about === null
            ? 'How this server was installed is shown to admin keys. The bridge’s command depends on it (below).'
            : `This server (${about.version}) runs from ${describeInstall(about.install)}.`}
      </p>
      {own ? (
        <>
          <p>The bridge of this installation:</p>
          <pre data-testid="stdio-config">{stdio(own)}</pre>
        </>
      ) : null}
      <p>{own ? 'Installed another way, the command and arguments are:' : 'The command and arguments:'}</p>
      <dl data-testid="bridges">
        {BRIDGES.map(({ kind, label, bridge }) => (
          <Fragment key={kind}>
            <dt>{label}</dt>
            <dd>
              <code>{[bridge.command, ...bridge.args].join(' ')}</code>
            </dd>
          </Fragment>
        ))}
      </dl>
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
