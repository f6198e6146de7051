import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';

// A second, independent MCP client from npm drives /mcp: the MCP Inspector's CLI mode.
const INSPECTOR = fileURLToPath(new URL('../node_modules/.bin/mcp-inspector', import.meta.url));
const API_KEY = 'inspector-key';
const run = promisify(execFile);

let work: string;
let cyrnel: CyrnelServer;

/** The Inspector's CLI against `/mcp` (or `path`). */
async function inspector(...args: string[]): Promise<string> {
  return inspectorAt('/mcp', ...args);
}

async function inspectorAt(path: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    INSPECTOR,
    [
      '--cli',
      `${cyrnel.url}${path}`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${API_KEY}`,
      ...args,
    ],
    // Its catalog goes to the test's directory, never to the home directory.
    { env: { ...process.env, MCP_CATALOG_PATH: join(work, 'mcp.json') }, timeout: 60_000 },
  );
  return stdout;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-inspector-'));
  cyrnel = await startCyrnel(join(work, 'cyrnel'), { CYRNEL_API_KEY: API_KEY });
});

afterAll(async () => {
  await cyrnel?.program.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the MCP Inspector CLI against /mcp', () => {
  it('lists the six tools', async () => {
    const listed = JSON.parse(await inspector('--method', 'tools/list'));
    expect(listed.tools.map((tool: { name: string }) => tool.name).sort()).toEqual([
      'check_typescript',
      'execute_typescript',
      'get_process',
      'get_tool_types',
      'search_tools',
      'wait_process',
    ]);
  });

  it('runs code through execute_typescript', async () => {
    const called = JSON.parse(
      await inspector(
        '--method',
        'tools/call',
        '--tool-name',
        'execute_typescript',
        '--tool-arg',
        'code=cyrnel.output({ sum: 20 + 22 })',
      ),
    );
    expect(called.structuredContent).toMatchObject({ exitState: 'success', output: { sum: 42 } });
  });
});

describe('the MCP Inspector CLI against /mcp/tools (direct tools)', () => {
  let upstream: Server;

  beforeAll(async () => {
    upstream = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"pong":true}'),
    );
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const spec = {
      openapi: '3.0.3',
      info: { title: 'Probe', version: '1.0.0' },
      servers: [{ url }],
      paths: {
        '/ping': {
          get: {
            operationId: 'ping',
            summary: 'Ping the probe',
            responses: {
              '200': {
                description: 'pong',
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { pong: { type: 'boolean' } } },
                  },
                },
              },
            },
          },
        },
      },
    };
    const installed = await fetch(`${cyrnel.url}/services`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'probe',
        adapter: 'openapi',
        definition: JSON.stringify(spec),
        enabled: true,
      }),
    });
    expect(installed.status).toBe(201);
  });
  afterAll(async () => {
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('lists the tool as probe__ping with its hints, and calls it', async () => {
    const listed = JSON.parse(await inspectorAt('/mcp/tools', '--method', 'tools/list'));
    expect(listed.tools).toEqual([
      expect.objectContaining({
        name: 'probe__ping',
        annotations: expect.objectContaining({ readOnlyHint: true }),
      }),
    ]);
    const called = JSON.parse(
      await inspectorAt('/mcp/tools', '--method', 'tools/call', '--tool-name', 'probe__ping'),
    );
    expect(called.structuredContent).toMatchObject({ status: 200, body: { pong: true } });
  });
});
