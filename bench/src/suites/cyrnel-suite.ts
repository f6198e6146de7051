import { createCyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { startServerProcess } from '../cyrnel/server-process.ts';
import { runApprovalLatency, runDecisionCost } from './cyrnel-approvals.ts';
import { runCyrnelInstall } from './cyrnel-install.ts';
import { runCyrnelLatency } from './cyrnel-latency.ts';
import { runCyrnelMcp } from './cyrnel-mcp.ts';
import { runCyrnelMcpAdapter } from './cyrnel-mcp-adapter.ts';
import { recordIdleMemory, recordWarmMemory, runLeakCheck } from './cyrnel-memory.ts';
import { runCyrnelThroughput } from './cyrnel-throughput.ts';
import { runCyrnelToolCalls } from './cyrnel-tool-calls.ts';
import { runCyrnelTypeCheck } from './cyrnel-typecheck.ts';
import { runCyrnelTypes } from './cyrnel-types.ts';
import type { SuiteContext } from './suite-context.ts';

/**
 * The real server, spawned from its built binary, measured against the floors and the peer.
 * Order matters: idle memory first, the GitHub installs last (they grow the heap for good).
 */
export async function runCyrnel(ctx: SuiteContext): Promise<void> {
  ctx.log('cyrnel: starting the server');
  const server = await startServerProcess(ctx.resources);
  const api = createCyrnelApi(server.url);
  const part = async (section: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      ctx.log(`${section}: could not run: ${error instanceof Error ? error.message : error}`);
      ctx.report.skip(section, error);
    }
  };
  try {
    await part('cyrnel: idle memory', () => recordIdleMemory(ctx, api, server));
    await part('cyrnel: process latency', () => runCyrnelLatency(ctx, api));
    await part('cyrnel: MCP latency', () => runCyrnelMcp(ctx, api));
    await part('cyrnel: warm memory', async () => recordWarmMemory(ctx, server));
    await part('cyrnel: throughput', () => runCyrnelThroughput(ctx, api));
    await part('cyrnel: tool calls', () => runCyrnelToolCalls(ctx, api, server));
    await part('cyrnel: MCP tool calls', () => runCyrnelMcpAdapter(ctx, api, server));
    await part('cyrnel: allow decision', () => runDecisionCost(ctx));
    await part('cyrnel: approvals', () => runApprovalLatency(ctx, api));
    await part('cyrnel: leak check', () => runLeakCheck(ctx, api, server));
    await part('cyrnel: install at scale', () => runCyrnelInstall(ctx, api, server));
    await part('cyrnel: types size', () => runCyrnelTypes(ctx, api));
    await part('cyrnel: type check', () => runCyrnelTypeCheck(ctx, api));
  } finally {
    await server.stop();
  }
}

/** Only the memory of a fresh server (`--only idle-rss`): just after start, then idle. */
export async function runCyrnelIdleOnly(ctx: SuiteContext): Promise<void> {
  ctx.log('cyrnel: starting the server');
  const server = await startServerProcess(ctx.resources);
  try {
    await recordIdleMemory(ctx, createCyrnelApi(server.url), server);
  } finally {
    await server.stop();
  }
}

/**
 * Only the trivial process (`--only trivial`): its latency, the throughput rows and the CPU per
 * process (the leak check's run), on a server of its own.
 */
export async function runCyrnelTrivialOnly(ctx: SuiteContext): Promise<void> {
  ctx.log('cyrnel: starting the server');
  const server = await startServerProcess(ctx.resources);
  try {
    const api = createCyrnelApi(server.url);
    await runCyrnelLatency(ctx, api);
    await runCyrnelThroughput(ctx, api);
    await runLeakCheck(ctx, api, server);
  } finally {
    await server.stop();
  }
}

/** Only the tool-call part (`--only tool-calls`: OpenAPI and MCP chains, policies), on a server of its own. */
export async function runCyrnelToolCallsOnly(ctx: SuiteContext): Promise<void> {
  ctx.log('cyrnel: starting the server');
  const server = await startServerProcess(ctx.resources);
  try {
    const api = createCyrnelApi(server.url);
    await runCyrnelToolCalls(ctx, api, server);
    await runCyrnelMcpAdapter(ctx, api, server);
    await runDecisionCost(ctx);
    await runApprovalLatency(ctx, api);
  } finally {
    await server.stop();
  }
}
