import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type Json, tempDir, useShopServer } from './helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'stdio-admin-key';

describe('cyrnel-server mcp: MCP over stdio', () => {
  const shop = useShopServer({ apiKey: KEY });
  let agentKey: string;

  beforeAll(async () => {
    // The bridge needs no admin rights: an agent key runs its own processes.
    agentKey = (await shop.api('POST', '/keys', { name: 'desktop', role: 'agent' })).body.key;
  });

  for (const era of ['modern', 'legacy'] as const) {
    it(`bridges a ${era} client to the running server with an agent key`, async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { PATH: process.env.PATH ?? '', CYRNEL_URL: shop.url(), CYRNEL_API_KEY: agentKey },
        stderr: 'pipe',
      });
      const client = new Client(
        { name: 'stdio-test', version: '1.0.0' },
        era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual([
          'check_typescript',
          'execute_typescript',
          'get_process',
          'get_tool_types',
          'search_tools',
          'wait_process',
        ]);
        const run = await client.callTool({
          name: 'execute_typescript',
          arguments: {
            code: 'const u = await cyrnel.services.shop.tools.getUser.invoke({ path: { id: 3 } }); cyrnel.output({ name: u.body.name });',
          },
        });
        expect(run.structuredContent).toMatchObject({ exitState: 'success', output: { name: 'user-3' } });
        const search = await client.callTool({ name: 'search_tools', arguments: { query: 'getUser' } });
        expect((search.structuredContent as Json).tools[0].tool).toBe('shop.getUser');
      } finally {
        await client.close();
      }
    });
  }

  it('runs an embedded host on a data directory with --embedded', async () => {
    const embedded = await tempDir('cyrnel-embedded-');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--embedded', '--data-dir', embedded.path],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client(
      { name: 'stdio-embedded', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    try {
      await client.connect(transport);
      const run = await client.callTool({
        name: 'execute_typescript',
        arguments: { code: 'console.log("hi"); cyrnel.output({ sum: 1 + 2 });' },
      });
      expect(run.structuredContent).toMatchObject({
        exitState: 'success',
        output: { sum: 3 },
        stdout: 'hi\n',
      });
      const docs = await client.readResource({ uri: 'cyrnel://docs/runtime' });
      expect(JSON.stringify(docs.contents)).toContain('cyrnel.output');
    } finally {
      await client.close();
      await embedded.remove();
    }
  });

  it('reads --embedded settings as the server does: a refused value exits 2 naming its variable or flag', async () => {
    const dir = await tempDir();
    onTestFinished(() => dir.remove());
    const refused = (args: string[], env: Record<string, string>) =>
      spawnSync(process.execPath, [CLI, 'mcp', '--embedded', ...args], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', ...env },
        input: '',
      });
    const badKey = refused(['--data-dir', dir.path], { CYRNEL_SECRETS_KEY: 'c2hvcnQ=' });
    expect(badKey.status).toBe(2);
    expect(badKey.stderr).toContain(
      'cyrnel-server mcp: invalid value for CYRNEL_SECRETS_KEY: must be base64 of 32 bytes',
    );
    expect(badKey.stdout).toBe('');
    const emptyDir = refused(['--data-dir= '], {});
    expect(emptyDir.status).toBe(2);
    expect(emptyDir.stderr).toContain('invalid value for --data-dir: must not be empty');
  });

  it('shows the default URL and data directory of the server in its help', () => {
    const help = spawnSync(process.execPath, [CLI, 'mcp', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('(CYRNEL_URL; default http://127.0.0.1:9371)');
    expect(help.stdout).toContain('(CYRNEL_DATA_DIR; default ~/.cyrnel)');
  });

  it('answers a line that is not JSON with a parse error (id null) and invalid params with -32602, and goes on', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', CYRNEL_URL: shop.url(), CYRNEL_API_KEY: agentKey },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const answers = async (count: number): Promise<Json[]> => {
      for (let i = 0; i < 400 && stdout.split('\n').length <= count; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      return stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
    };
    try {
      child.stdin.write('Content-Length: 52\n');
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })}\n`);
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
      );
      const [parse, invalid, initialized] = await answers(3);
      expect(parse).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the line is not JSON' },
      });
      expect(invalid).toMatchObject({
        id: 1,
        error: {
          code: -32602,
          message: 'Invalid params of initialize: protocolVersion: expected string, received undefined',
        },
      });
      expect(initialized).toMatchObject({ id: 2, result: { serverInfo: { name: 'cyrnel' } } });
    } finally {
      child.stdin.end();
    }
  });

  it('ends within 2 s of stdin closing, writing nothing but protocol to stdout', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', CYRNEL_URL: shop.url(), CYRNEL_API_KEY: agentKey },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once('exit', (code) => resolve({ code, at: performance.now() })),
    );
    const request = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    child.stdin.write(`${JSON.stringify(request)}\n`);
    for (let i = 0; i < 200 && !stdout.includes('\n'); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(JSON.parse(stdout.split('\n')[0] as string)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'cyrnel' } },
    });
    const closedAt = performance.now();
    child.stdin.end();
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - closedAt).toBeLessThan(2000);
    for (const line of stdout.split('\n').filter((line) => line !== ''))
      expect(JSON.parse(line).jsonrpc).toBe('2.0');
  });
});
