import type { McpServer } from '@modelcontextprotocol/server';
import type { CatalogChanges } from './catalog-watch';

/**
 * Keep a connected server instance in step with the catalog: on every change, `refresh` (which
 * renders `execute_typescript`'s description again; the SDK then sends
 * `notifications/tools/list_changed`) and `notifications/resources/list_changed` (the types the
 * resources answer changed). One refresh at a time; changes meanwhile make one more. Stops when
 * the instance closes.
 *
 * @example
 * ```ts
 * followCatalog(server, watch, () => tools.refreshDescription());
 * ```
 */
export function followCatalog(
  server: McpServer,
  changes: CatalogChanges,
  refresh: () => Promise<void>,
): void {
  let running = false;
  let again = false;
  const onChange = () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        await refresh().catch((error: unknown) => server.server.onerror?.(asError(error)));
        server.sendResourceListChanged();
      } while (again);
    })().finally(() => {
      running = false;
    });
  };
  const unsubscribe = changes.subscribe(onChange);
  const inner = server.server;
  const onclose = inner.onclose;
  inner.onclose = () => {
    unsubscribe();
    onclose?.();
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
