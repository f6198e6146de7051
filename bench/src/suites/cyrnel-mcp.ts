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
  await measureEra(ctx, api, 'modern');
  await measureEra(ctx, api, 'legacy');
}

/** One protocol generation: the current revision (the target applies) or the 2025 one. */
async function measureEra(ctx: SuiteContext, api: CyrnelApi, era: 'modern' | 'legacy'): Promise<void> {
  const { config, report } = ctx;
  ctx.log(`cyrnel: trivial process through MCP (${era})`);
  const client = new Client(
    { name: 'cyrnel-bench', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
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
      metric:
        era === 'modern'
          ? 'cyrnel: trivial process through MCP (execute_typescript, Streamable HTTP)'
          : 'cyrnel: trivial process through MCP, 2025 protocol (stateless, SSE answers)',
      unit: 'ms',
      stats,
      baseline: TRIVIAL_PROCESS,
      label: 'POST /processes',
      ...(era === 'modern' ? { maxRatio: 1.3, target: '≤ 1.3×' } : {}),
      note:
        era === 'modern'
          ? 'the official MCP client on the current revision; each call builds its MCP server, creates and waits for the process, reads its calls'
          : 'the official MCP client without version negotiation: the 2025 handshake, every answer an SSE stream',
    });
  } finally {
    await client.close();
  }
}
