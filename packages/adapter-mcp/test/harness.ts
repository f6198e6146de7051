import { createRequire } from 'node:module';
import type { AdapterModule, ModuleLogger, ModuleSetupContext, ServiceDefinition } from '@cyrnel/sdk';
import { stateOf } from '@cyrnel/testing';
import { createMcpAdapter } from '../src/index';

const require = createRequire(import.meta.url);

/** The fixture server's file. */
export const FIXTURE = new URL('./fixtures/fixture-server.mjs', import.meta.url).pathname;
/** server-everything's and server-memory's entry points (started with this node, no npx). */
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** A stdio definition running `node <file> ...args`. */
export function nodeServer(file: string, args: string[] = [], env: Record<string, string> = {}): string {
  return JSON.stringify({ transport: 'stdio', command: process.execPath, args: [file, ...args], env });
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger keeping every line as `level message fields-as-JSON`. */
export function recordingLogger(): { logger: ModuleLogger; lines: string[] } {
  const lines: string[] = [];
  const line = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  };
  return {
    logger: { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') },
    lines,
  };
}

/** A set-up adapter allowed to start this node; `changed` records `toolsChanged` reports. */
export async function setUpAdapter(
  overrides: Partial<ModuleSetupContext> & { allowedCommands?: string[] } = {},
): Promise<{ adapter: AdapterModule; changed: string[] }> {
  const changed: string[] = [];
  const adapter = createMcpAdapter();
  const { allowedCommands = [process.execPath], ...rest } = overrides;
  await adapter.setup({
    config: { allowedCommands, connectTimeoutMs: 30_000 },
    secrets: {},
    logger: silent,
    services: { toolsChanged: (id) => changed.push(id) },
    ...rest,
  });
  return { adapter, changed };
}

/** Generate and hydrate service `id`; answers the definition. */
export async function install(
  adapter: AdapterModule,
  id: string,
  text: string,
  settings: { config?: Record<string, unknown>; secrets?: Record<string, unknown> } = {},
): Promise<ServiceDefinition> {
  const definition = await adapter.generateDefinition(text, {
    config: settings.config ?? {},
    secrets: settings.secrets ?? {},
  });
  await adapter.hydrateService(
    stateOf(id, definition, {
      config: { timeoutMs: 60_000, ...settings.config },
      secrets: settings.secrets ?? {},
    }),
  );
  return definition;
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once `check` holds, polling every 20 ms, failing after `ms`. */
export async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
