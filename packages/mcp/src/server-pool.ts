import type { McpServer } from '@modelcontextprotocol/server';

/** Idle MCP server instances by key, kept between requests. */
export interface ServerPool {
  /** An idle instance built for `key`, or undefined. */
  take(key: string): McpServer | undefined;
  /**
   * Build `build()` for `key`, or take an idle one: either way the instance goes back to the pool
   * when the SDK closes its exchange (an instance serves one exchange at a time).
   */
  acquire(key: string, build: () => Promise<McpServer>): Promise<McpServer>;
  /** How many instances are idle now. */
  readonly size: number;
}

/**
 * A bounded pool of idle server instances: building one (a server, its tools, schemas and
 * description) for every request costs more than the rest of a small call, and the SDK accepts
 * any instance that is not serving. At most `maxIdle` are kept over all keys; the least recently
 * used key loses its instances first.
 *
 * @example
 * ```ts
 * const pool = createServerPool(64);
 * const server = await pool.acquire(`${keyId}|${catalogVersion}`, () => createCyrnelMcpServer(backend, options));
 * ```
 */
export function createServerPool(maxIdle: number): ServerPool {
  const idle = new Map<string, McpServer[]>();
  let size = 0;
  const give = (key: string, server: McpServer) => {
    // Still connected: the SDK has not let it go (or another exchange took it meanwhile).
    if (server.server.transport !== undefined || maxIdle <= 0) return;
    const list = idle.get(key) ?? [];
    if (list.includes(server)) return;
    list.push(server);
    idle.delete(key);
    idle.set(key, list);
    size++;
    while (size > maxIdle) {
      const [oldest, servers] = idle.entries().next().value as [string, McpServer[]];
      servers.shift();
      size--;
      if (servers.length === 0) idle.delete(oldest);
    }
  };
  const pool: ServerPool = {
    take(key) {
      const list = idle.get(key);
      const server = list?.pop();
      if (list && list.length === 0) idle.delete(key);
      if (server) size--;
      return server;
    },
    async acquire(key, build) {
      const reused = pool.take(key);
      if (reused) return reused;
      const server = await build();
      const inner = server.server;
      const onclose = inner.onclose;
      inner.onclose = () => {
        try {
          onclose?.();
        } finally {
          give(key, server);
        }
      };
      return server;
    },
    get size() {
      return size;
    },
  };
  return pool;
}
