import type { CyrnelHost } from '@cyrnel/core';
import {
  createCatalogWatch,
  createDirectToolsHost,
  createRemoteDirectTools,
  serveDirectToolsStdio,
} from '@cyrnel/mcp';
import type { ServerLogger } from './create-logger';

/** Where `cyrnel-server mcp --tools` takes its tools from: the embedded host, or a running server. */
export type ToolsStdioTarget =
  | { readonly host: CyrnelHost }
  | { readonly url: string; readonly apiKey?: string | undefined };

/** How often the embedded host's catalog is looked at, to tell the client its tools changed. */
const CATALOG_POLL_MS = 1000;

/**
 * Serve direct tools on stdio until stdin closes. Embedded: the host's tools as its own user sees
 * them (every callable tool; its approvals asked through a client that shows forms). Remote: the
 * server's `/mcp/tools` with the key given, passed through, so the key's scope and the server's
 * policies and audit apply there.
 *
 * @example
 * ```ts
 * await serveToolsStdio({ url: 'http://127.0.0.1:9371', apiKey }, { version, logger });
 * ```
 */
export async function serveToolsStdio(
  target: ToolsStdioTarget,
  options: { readonly version: string; readonly logger: ServerLogger },
): Promise<void> {
  const { version, logger } = options;
  const onerror = (error: Error) => logger.error('mcp error', { error: error.message });
  if ('host' in target) {
    const { host } = target;
    const tools = createDirectToolsHost({ host, onLeftOut: (message) => logger.warn(message) });
    const watch = createCatalogWatch({
      version: () => host.catalogVersion(),
      pollMs: CATALOG_POLL_MS,
      onerror,
    });
    try {
      await serveDirectToolsStdio(tools.source({ processes: host.processes, approver: { keyId: null } }), {
        version,
        verifyRequestState: tools.codec.verify,
        changes: watch,
        onerror,
      });
    } finally {
      watch.close();
      await tools.close();
    }
    return;
  }
  const remote = createRemoteDirectTools({
    url: `${target.url.replace(/\/+$/, '')}/mcp/tools`,
    apiKey: target.apiKey,
    version,
  });
  try {
    await serveDirectToolsStdio(remote, { version, changes: remote.changes, onerror });
  } finally {
    await remote.close();
  }
}
