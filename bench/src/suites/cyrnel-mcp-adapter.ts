import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { threadsCpuMs } from '../cyrnel/proc-memory.ts';
import { compare } from '../harness/compare.ts';
import { measure } from '../harness/measure.ts';
import type { SuiteContext } from './suite-context.ts';

const CALLS = 1_000;
const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
/** server-everything over stdio installed as the `mcp` service `everything` (its command allowed first), enabled. */
export async function installEverything(api: CyrnelApi): Promise<void> {
  await api.patch('/modules/mcp/config', [
    { op: 'add', path: '/allowedCommands', value: [process.execPath] },
  ]);
  await api.post('/services', {
    id: 'everything',
    adapter: 'mcp',
    definition: JSON.stringify({
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    }),
    enabled: true,
  });
}

const DIRECT = 'floor: 1,000 sequential MCP tool calls with the MCP client SDK (stdio)';

/** The sum every run must reach: `get-sum` of (i, 1) for i < 1,000, added up. */
const EXPECTED = (CALLS * (CALLS - 1)) / 2 + CALLS;

/**
 * The MCP adapter's cost: 1,000 sequential calls of server-everything's `get-sum` over stdio, made directly with
 * the official MCP client (the floor), and made by one cyrnel process through the `mcp` adapter.
 */
export async function runCyrnelMcpAdapter(
  ctx: SuiteContext,
  api: CyrnelApi,
  server?: { readonly pid: number },
): Promise<void> {
  const { config, report } = ctx;
  ctx.log('floor: direct MCP client calls');
  const client = new Client({ name: 'cyrnel-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  );
  try {
    const direct = async () => {
      let sum = 0;
      for (let i = 0; i < CALLS; i++) {
        const result = await client.callTool({ name: 'get-sum', arguments: { a: i, b: 1 } });
        const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
        sum += Number(/is (-?\d+)\.$/.exec(text)?.[1]);
      }
      if (sum !== EXPECTED) throw new Error(`direct calls summed to ${sum}`);
    };
    await direct();
    report.add({
      section: 'tool calls',
      metric: DIRECT,
      unit: 'ms',
      stats: await measure(direct, { warmup: 0, reps: config.chainReps }),
    });
  } finally {
    await client.close();
  }

  ctx.log('cyrnel: MCP tool calls through the mcp adapter');
  await installEverything(api);
  const code = `const getSum = cyrnel.services.everything.tools.get_sum;
let sum = 0;
for (let i = 0; i < ${CALLS}; i++) {
  const text: string = await getSum.invoke({ a: i, b: 1 });
  sum += Number(/is (-?\\d+)\\.$/.exec(text)?.[1]);
}
cyrnel.output({ sum });`;
  const check = await api.run(code, 120_000);
  if ((check.output as { sum?: number }).sum !== EXPECTED)
    throw new Error(`the MCP chain returned ${JSON.stringify(check.output)}`);
  const mainBefore = server ? threadsCpuMs(server.pid, 'MainThread') : 0;
  const stats = await measure(() => api.run(code, 120_000), { warmup: 0, reps: config.chainReps });
  if (server) {
    const perCall = (threadsCpuMs(server.pid, 'MainThread') - mainBefore) / (config.chainReps * CALLS);
    report.add({
      section: 'tool calls',
      metric: "cyrnel: server main thread's CPU per MCP tool call",
      unit: 'ms',
      value: perCall,
      note: `user+system CPU of the server's main thread (the gate, the policies, the audit's writes, the mcp adapter and its MCP client, IPC with the sandbox child) over ${config.chainReps * CALLS} sequential calls`,
    });
  }
  compare(report, {
    section: 'tool calls',
    metric: 'cyrnel: 1,000 sequential MCP tool calls in one process (mcp adapter, stdio)',
    unit: 'ms',
    stats,
    baseline: DIRECT,
    label: 'MCP SDK',
    maxRatio: 1.5,
    target: '≤ 1.5×',
    note: 'whole process round trip (HTTP, sandbox, gate, adapter, MCP server) over the same calls from the official client',
  });
}
