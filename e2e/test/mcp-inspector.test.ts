import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
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

async function inspector(...args: string[]): Promise<string> {
  const { stdout } = await run(
    INSPECTOR,
    [
      '--cli',
      `${cyrnel.url}/mcp`,
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
