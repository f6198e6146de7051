import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { compare } from '../harness/compare.ts';
import { measure } from '../harness/measure.ts';
import { TRIVIAL } from '../programs.ts';
import { type SuiteContext, TRIVIAL_PROCESS } from './suite-context.ts';

/**
 * The trivial program through MCP: `execute_typescript` called by the official MCP client over
 * Streamable HTTP (`/mcp`, one connected client, every call its own POST), against the same
 * program through `POST /processes {wait:true}` measured earlier in the run.
 */
export async function runCyrnelMcp(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  const { config, report } = ctx;
  ctx.log('cyrnel: trivial process through MCP');
  const client = new Client({ name: 'cyrnel-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`)));
  try {
    const execute = async () => {
      const result = await client.callTool({ name: 'execute_typescript', arguments: { code: TRIVIAL } });
      const view = result.structuredContent as { exitState?: string; output?: unknown } | undefined;
      if (view?.exitState !== 'success' || JSON.stringify(view.output) !== '{"ok":true}')
        throw new Error(`execute_typescript answered ${JSON.stringify(result).slice(0, 300)}`);
    };
    await execute();
    const stats = await measure(execute, { warmup: config.warmup, reps: config.latencyReps });
    compare(report, {
      section: 'latency',
      metric: 'cyrnel: trivial process through MCP (execute_typescript, Streamable HTTP)',
      unit: 'ms',
      stats,
      baseline: TRIVIAL_PROCESS,
      label: 'POST /processes',
      maxRatio: 1.3,
      target: '≤ 1.3×',
      note: 'the official MCP client; each call builds its MCP server, creates, waits and reads the process',
    });
  } finally {
    await client.close();
  }
}
