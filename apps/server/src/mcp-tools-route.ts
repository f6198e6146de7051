import type { CyrnelHost, KeyRules } from '@cyrnel/core';
import { type Caller, callerProcesses } from '@cyrnel/http';
import { createDirectToolsHost, createDirectToolsHttpHandler, type McpHttpHandler } from '@cyrnel/mcp';

/** Options of {@link directToolsHandler}. */
export interface DirectToolsRouteOptions {
  readonly host: CyrnelHost;
  readonly version: string;
  /** Largest MCP request body. */
  readonly maxBodyBytes: number;
  /** The scope and policy of a stored key (undefined: unknown, treated as none, as the host does). */
  readonly keyRules?: (keyId: string) => Promise<KeyRules | undefined>;
  /** Signs the state of approval rounds (the same on every host of one database). */
  readonly requestStateKey?: Uint8Array;
  /** A tool not offered as a direct tool (its name breaks MCP's rules or is shared, a schema too large). */
  readonly onLeftOut?: (message: string) => void;
  /** Who a caller is (its key): a cancellation reaches only a call of the same caller. */
  readonly identity?: (caller: Caller) => string;
  /** How often the catalog is looked at for clients listening for list changes. Default 1,000 ms. */
  readonly listChangedPollMs?: number;
}

/**
 * The handler of `/mcp/tools`: the tools the caller's key may call, one MCP tool each, for clients
 * that run their own code. Each call is a process of one tool call under the caller's key and
 * principal, exactly as a call from code (`callerProcesses`: an agent's processes are its own); an
 * admin or approver key's client that shows forms is asked to decide the approvals its calls meet.
 *
 * @example
 * ```ts
 * const tools = directToolsHandler({ host, version, maxBodyBytes, keyRules: (id) => keys.rules(id) });
 * app.all('/tools', (c) => tools.fetch(c.req.raw, c.get('caller')));
 * ```
 */
export function directToolsHandler(options: DirectToolsRouteOptions): McpHttpHandler<Caller> {
  const { host, keyRules } = options;
  const tools = createDirectToolsHost({
    host,
    ...(options.onLeftOut ? { onLeftOut: options.onLeftOut } : {}),
    ...(options.requestStateKey ? { requestStateKey: options.requestStateKey } : {}),
  });
  const handler = createDirectToolsHttpHandler<Caller>({
    tools,
    version: options.version,
    maxRequestBodySize: options.maxBodyBytes,
    identity: options.identity,
    ...(options.listChangedPollMs === undefined ? {} : { listChangedPollMs: options.listChangedPollMs }),
    caller: (caller) => {
      const { keyId } = caller;
      return {
        processes: callerProcesses(host.processes, caller),
        ...(keyRules && keyId !== null ? { keyRules: () => keyRules(keyId) } : {}),
        // Who may decide approvals over HTTP may decide them when asked through the client; an
        // agent key never approves its own calls.
        ...(caller.role === 'admin' || caller.role === 'approver' ? { approver: { keyId } } : {}),
      };
    },
  });
  return {
    fetch: handler.fetch,
    async close() {
      await handler.close();
      await tools.close();
    },
  };
}
