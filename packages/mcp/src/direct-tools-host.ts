import { randomBytes } from 'node:crypto';
import {
  type CyrnelHost,
  createSchemaChecker,
  type KeyRules,
  type ProcessesApi,
  type SchemaChecker,
} from '@cyrnel/core';
import { ProtocolError, ProtocolErrorCode, type RequestStateCodec } from '@modelcontextprotocol/server';
import { type ApprovalRound, approvalRoundCodec } from './approval-round';
import { inCallerTrace } from './caller-trace';
import { createDirectCatalog, type DirectCatalog } from './direct-catalog';
import { callDirectTool } from './direct-tool-call';
import type { DirectToolLimits } from './direct-tool-schemas';
import { listPage, type PageLimits } from './direct-tools-page';
import type { DirectToolsSource } from './direct-tools-server';
import { createHostBackend } from './host-backend';

/** Options of {@link createDirectToolsHost}. */
export interface DirectToolsHostOptions {
  readonly host: CyrnelHost;
  /** A tool left out (a name breaking MCP's rules or shared by two tools, a schema too large), said once. */
  readonly onLeftOut?: (message: string) => void;
  /** Bounds of one tool's listing. Default: schemas up to 64 KiB of JSON, descriptions up to 8 KiB. */
  readonly limits?: Partial<DirectToolLimits>;
  /** Bounds of a `tools/list` page. Default: 100 tools, 1 MiB of JSON. */
  readonly page?: Partial<PageLimits>;
  /** How long a call waits for its process (approvals included) before it is withdrawn. Default 50,000 ms. */
  readonly waitMs?: number;
  /** Text of a result is cut beyond this many characters when the whole is in `structuredContent`. Default 20,000. */
  readonly maxTextChars?: number;
  /** How often finished tool calls are counted while waiting, for progress. Default 100 ms. */
  readonly progressPollMs?: number;
  /** Seals approval rounds; every instance a retry may reach needs the same key. Default: random. */
  readonly requestStateKey?: Uint8Array | string;
}

/** Who calls, for one request or connection. */
export interface DirectToolsCaller {
  /** The caller's processes (scoped to its key and principal); a call's process is created here. */
  readonly processes: ProcessesApi;
  /** The caller's key's scope and policy (none: every callable tool, the tools' own policies). */
  keyRules?(): Promise<KeyRules | undefined>;
  /** Set when the caller may decide approvals (an admin or approver key, the embedded user). */
  readonly approver?: { readonly keyId: string | null };
  /** The base of approval links; default the origin the client reached over HTTP. */
  readonly serverUrl?: string;
  /** Aborted when the client goes away. */
  readonly requestSignal?: AbortSignal;
}

/** Direct tools over one host: a source per caller, sharing the catalog, the checker and the state key. */
export interface DirectToolsHost {
  /** The direct tools `caller` sees and calls. */
  source(caller: DirectToolsCaller): DirectToolsSource;
  /** The sealing of approval rounds: verify a retry's state before any handler runs. */
  readonly codec: RequestStateCodec<ApprovalRound>;
  /** The host's catalog version (a change of the tools offered changes it). */
  version(): string;
  /** Stop the output-schema checker's workers. */
  close(): Promise<void>;
}

/** The origin of the request's URL, the admin UI's base for approval links. */
const originOf = (request: Request | undefined) => (request ? new URL(request.url).origin : undefined);

/**
 * Direct tools of a host in this process: each callable tool the caller's key may call, named
 * `<service>__<tool>`, listed with its schemas and annotations, called as a process of one call
 * under the caller's key (`callDirectTool`). One per server (or stdio bridge): the catalog is
 * read once per catalog version for every caller, and a result is checked against its tool's
 * output schema by one worker thread.
 *
 * @example
 * ```ts
 * const tools = createDirectToolsHost({ host, onLeftOut: (message) => logger.warn(message) });
 * const source = tools.source({ processes: scopeProcesses(host.processes, actor), keyRules: () => keys.rules(keyId) });
 * const page = await source.list(undefined);
 * await tools.close();
 * ```
 */
export function createDirectToolsHost(options: DirectToolsHostOptions): DirectToolsHost {
  const { host } = options;
  const catalog: DirectCatalog = createDirectCatalog({
    tools: host.tools,
    version: () => host.catalogVersion(),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onLeftOut ? { onLeftOut: options.onLeftOut } : {}),
  });
  // Schemas come from service definitions: checked off the main thread, each under a deadline.
  const checker: SchemaChecker = createSchemaChecker({ workers: 1 });
  const codec = approvalRoundCodec(options.requestStateKey ?? randomBytes(32));
  const page: PageLimits = {
    pageSize: options.page?.pageSize ?? 100,
    maxPageChars: options.page?.maxPageChars ?? 1024 * 1024,
  };
  const maxTextChars = options.maxTextChars ?? 20_000;
  return {
    codec,
    version: () => host.catalogVersion(),
    close: () => checker.close(),
    source(caller) {
      const backend = createHostBackend({
        host,
        processes: caller.processes,
        ...(caller.approver ? { approver: caller.approver } : {}),
      });
      return {
        list: async (cursor) => listPage(catalog, await caller.keyRules?.(), cursor, page),
        async call(name, args, { ctx, clientCapabilities }) {
          const entry = (await catalog.index()).byName.get(name);
          // Blocked and out-of-scope tools are not listed but still reach the gate, which refuses
          // them with their reason and records the attempt; a name that is no tool is the client's error.
          const listed = entry && (await catalog.listed(entry));
          if (!entry || !listed)
            throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
          // The caller's trace (`_meta.traceparent`) goes on in the call's process, as for execute_typescript.
          const result = await inCallerTrace(ctx.mcpReq._meta, name, () =>
            callDirectTool(
              {
                asking: { backend, codec, capabilities: clientCapabilities, maxTextChars },
                processes: caller.processes,
                checker,
                maxTextChars,
                waitMs: options.waitMs ?? 50_000,
                progressPollMs: options.progressPollMs ?? 100,
                serverUrl: caller.serverUrl ?? originOf(ctx.http?.req),
                requestSignal: caller.requestSignal ?? ctx.http?.req?.signal,
              },
              entry,
              listed.outputSchema,
              args,
              ctx,
            ),
          );
          return { result, outputSchema: listed.outputSchema };
        },
      };
    },
  };
}
