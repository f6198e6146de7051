import type { McpServer } from '@modelcontextprotocol/server';
import type { CatalogChanges } from './catalog-watch';

/**
 * Keep a connected server instance in step with the catalog: at the first version told after it
 * subscribed (the description it was built with may be older) and at every new one, `refresh`
 * renders `execute_typescript`'s description again (or, when the versions are descriptions
 * themselves, `changes.describes`, takes the version told as it); when it changed, the SDK sends
 * `notifications/tools/list_changed` and this `notifications/resources/list_changed` (the types
 * the resources answer changed with it). One refresh at a time; a version told meanwhile makes
 * one more. Stops when the instance closes.
 *
 * @example
 * ```ts
 * followCatalog(server, watch, (description) => tools.refreshDescription(description));
 * ```
 */
export function followCatalog(
  server: McpServer,
  changes: CatalogChanges,
  refresh: (description?: string) => Promise<boolean>,
): void {
  let seen: string | undefined;
  let running = false;
  let again = false;
  const onVersion = (version: string) => {
    if (version === seen) return;
    seen = version;
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        // A version that is the description is the description: rendering it again could show a
        // newer catalog, and a change back to the version told would then pass unnoticed.
        const told = changes.describes ? seen : undefined;
        const changed = await refresh(told).catch((error: unknown) => {
          server.server.onerror?.(error instanceof Error ? error : new Error(String(error)));
          // Not followed yet: the next look tries again (a busy server may fail one rendering).
          seen = undefined;
          return false;
        });
        if (changed) server.sendResourceListChanged();
      } while (again);
    })().finally(() => {
      running = false;
    });
  };
  const unsubscribe = changes.subscribe(onVersion);
  const inner = server.server;
  const onclose = inner.onclose;
  inner.onclose = () => {
    unsubscribe();
    onclose?.();
  };
}
