import type { JSONSchema } from '@cyrnel/sdk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/server';
import { traceMetaOf } from './caller-trace';
import type { CatalogChanges } from './catalog-watch';
import type { DirectToolsSource } from './direct-tools-server';

/** Options of {@link createRemoteDirectTools}. */
export interface RemoteDirectToolsOptions {
  /** The server's direct tools endpoint, e.g. `http://127.0.0.1:9371/mcp/tools`. */
  readonly url: string;
  /** Its API key (an agent key is enough); sent as `Authorization: Bearer`. */
  readonly apiKey?: string | undefined;
  /** This bridge's version, as the server sees its client. */
  readonly version: string;
  /** Longest wait for one call's answer. Default 600,000 ms (the server ends its calls sooner). */
  readonly callTimeoutMs?: number;
}

/** A remote server's direct tools, and when they change; close to disconnect. */
export interface RemoteDirectTools extends DirectToolsSource {
  /** The server's `notifications/tools/list_changed` as a version: one more per change it sends. */
  readonly changes: CatalogChanges;
  close(): Promise<void>;
}

/** An error of the remote server as this server's own, its JSON-RPC code kept. */
function asProtocolError(error: unknown): unknown {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code !== 'number' || typeof message !== 'string') return error;
  return new ProtocolError(code, message, data);
}

/**
 * The direct tools of a cyrnel server, reached over Streamable HTTP with the bridge's key (what
 * `cyrnel-server mcp --tools` serves on stdio): pages and calls are passed through as the server
 * answers them, so the key's scope, the policies and the audit are the server's; progress
 * notifications of a call reach the stdio client. The client of the bridge cannot be asked to
 * decide approvals through it (the server sees a client that shows no forms): a call that waits
 * for one is decided where the server's answer says.
 *
 * @example
 * ```ts
 * const remote = createRemoteDirectTools({ url: 'http://127.0.0.1:9371/mcp/tools', apiKey, version });
 * await serveDirectToolsStdio(remote, { version, changes: remote.changes });
 * await remote.close();
 * ```
 */
export function createRemoteDirectTools(options: RemoteDirectToolsOptions): RemoteDirectTools {
  const listeners = new Set<(version: string) => void>();
  let changed = 0;
  const client = new Client(
    { name: 'cyrnel-mcp-bridge', version: options.version },
    {
      versionNegotiation: { mode: 'auto' },
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => {
            changed++;
            for (const listener of [...listeners]) listener(String(changed));
          },
        },
      },
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(options.url), {
    ...(options.apiKey ? { requestInit: { headers: { authorization: `Bearer ${options.apiKey}` } } } : {}),
  });
  let connected: Promise<void> | undefined;
  const connect = () => {
    connected ??= client.connect(transport).catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    return connected;
  };
  // The output schema each tool was listed with: this bridge projects results for its own client.
  const outputSchemas = new Map<string, JSONSchema | undefined>();
  return {
    changes: {
      subscribe(listener) {
        listeners.add(listener);
        // The version as it stands: the listener compares what comes after with it.
        listener(String(changed));
        void connect().catch(() => undefined);
        return () => {
          listeners.delete(listener);
        };
      },
    },
    async list(cursor) {
      await connect();
      // One page at a time, as the server pages (the client's listTools() would walk them all).
      const page = await client
        .request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } })
        .catch((error: unknown) => {
          throw asProtocolError(error);
        });
      for (const tool of page.tools)
        outputSchemas.set(tool.name, tool.outputSchema as JSONSchema | undefined);
      return page;
    },
    async call(name, args, { ctx }) {
      await connect();
      const token = ctx.mcpReq._meta?.progressToken;
      // The client's trace goes on at the server: its `_meta.traceparent` (and `tracestate`) is handed on.
      const trace = traceMetaOf(ctx.mcpReq._meta);
      const result = await client
        .callTool(
          { name, arguments: args, ...(trace ? { _meta: { ...trace } } : {}) },
          {
            signal: ctx.mcpReq.signal,
            timeout: options.callTimeoutMs ?? 600_000,
            resetTimeoutOnProgress: true,
            ...(token === undefined
              ? {}
              : {
                  onprogress: (progress) =>
                    void ctx.mcpReq
                      .notify({
                        method: 'notifications/progress',
                        params: { ...progress, progressToken: token },
                      })
                      .catch(() => undefined),
                }),
          },
        )
        .catch((error) => {
          throw asProtocolError(error);
        });
      return { result: result as never, outputSchema: outputSchemas.get(name) };
    },
    async close() {
      listeners.clear();
      await client.close().catch(() => undefined);
    },
  };
}
