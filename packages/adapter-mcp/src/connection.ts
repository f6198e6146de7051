import {
  type CyrnelError,
  cyrnelError,
  isCyrnelError,
  type ModuleLogger,
  type OutboundPolicy,
} from '@cyrnel/sdk';
import {
  type CallToolResult,
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  type Tool,
} from '@modelcontextprotocol/client';
import { ANSWER_TOO_LARGE_CODE, type AnswerReader } from './answer-reader';
import type { ServerSpec } from './definition';
import { causes } from './error-causes';
import { createGuardedFetch, type GuardedFetch } from './guarded-fetch';
import { isAuthorizationFailure, type OAuthSession } from './oauth/session';
import { createStdioTransport, describeExit, type StdioTransport } from './stdio-transport';
import { withTraceHeaders } from './trace-headers';

/** Options of {@link createConnection}. */
export interface ConnectionOptions {
  /** The spec with its placeholders filled. */
  readonly spec: ServerSpec;
  /** What the connection is for, in messages: `service memory`, `the definition`. */
  readonly label: string;
  readonly outbound?: OutboundPolicy;
  /** Commands a stdio server may be started with (the module's `allowedCommands`). */
  readonly allowedCommands: readonly string[];
  readonly clientVersion: string;
  /** Deadline of connecting (spawn, initialize, for HTTP the handshake). */
  readonly connectTimeoutMs: number;
  /** Called when the server announces `notifications/tools/list_changed`. */
  readonly onToolsChanged?: () => void;
  readonly logger: ModuleLogger;
  /** Reads the server's messages, bounded (see `createAnswerReader`). */
  readonly answers: AnswerReader;
  /** Largest answer to one request, in bytes. */
  readonly maxAnswerBytes: number;
  /**
   * The OAuth client of an HTTP server behind OAuth (the MCP authorization specification). Without
   * it nothing changes: a 401 is `upstream_unauthorized` and only the server's origin is reached.
   */
  readonly oauth?: OAuthSession;
}

/** One MCP server, connected lazily and again after a failure (with backoff). */
export interface McpConnection {
  /** Every tool (all pages, at most 64). */
  listTools(signal?: AbortSignal): Promise<Tool[]>;
  /** One tool call; a transport failure reconnects once and retries. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      readonly signal?: AbortSignal;
      readonly timeoutMs: number;
      /** The request's `_meta` (the W3C trace context of the call, when traced). */
      readonly meta?: Readonly<Record<string, string>>;
    },
  ): Promise<CallToolResult>;
  /** The server's name and instructions, once connected. */
  serverInfo(): { name?: string; title?: string; version?: string; instructions?: string };
  close(): Promise<void>;
}

/** Results are not validated in cyrnel's event loop: a server's schema regex could hold it. */
const PASS_THROUGH_VALIDATOR = {
  getValidator: () => (input: unknown) => ({
    valid: true as const,
    data: input as never,
    errorMessage: undefined,
  }),
};

const MAX_BACKOFF_MS = 30_000;

/** Throws 403 when the stdio command is not allowed by the module's config. */
export function assertCommandAllowed(spec: ServerSpec, allowedCommands: readonly string[]): void {
  if (spec.transport !== 'stdio' || allowedCommands.includes(spec.command)) return;
  throw cyrnelError(
    'forbidden',
    `starting "${spec.command}" is not allowed: stdio MCP servers run commands on this machine, so each command must be in the mcp module's config allowedCommands (PATCH /modules/mcp)`,
    { details: [{ path: 'definition/command', message: 'not in allowedCommands' }] },
  );
}

/** Errors of a request that was never sent: retrying it cannot run a tool twice. */
const UNSENT = new Set(['NOT_CONNECTED', 'SEND_FAILED', 'ECONNREFUSED', 'EPIPE']);

function notDelivered(error: unknown): boolean {
  return causes(error).some(
    (cause) =>
      UNSENT.has(String((cause as { code?: unknown })?.code)) ||
      /MCP server is not running/.test(message(cause)),
  );
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The reason and details of a call that waits for a person to authorize (see `authorizationFailure`). */
function isAuthorizationNeeded(error: CyrnelError): boolean {
  return (
    error.reason === 'upstream_unauthorized' &&
    typeof (error.details as { authorization?: unknown } | undefined)?.authorization === 'object'
  );
}

/**
 * A request refused for want of authorization, with OAuth: the authorization URL a person must
 * open (in `details.authorization`), or a refusal authorizing again cannot lift.
 */
function authorizationFailure(oauth: OAuthSession, error: unknown, label: string): CyrnelError | undefined {
  const needed = oauth.authorizationNeeded(error);
  if (needed?.futile)
    return cyrnelError(
      'upstream_unauthorized',
      `the MCP server of ${label} refused the call for want of scope ${needed.scope ?? ''}, which the current authorization already grants: authorizing again cannot help`,
    );
  if (needed)
    return cyrnelError(
      'upstream_unauthorized',
      `the MCP server of ${label} needs authorization: a person must open the authorization URL`,
      {
        details: {
          authorization: { url: needed.authorizationUrl, ...(needed.scope ? { scope: needed.scope } : {}) },
        },
      },
    );
  if (isAuthorizationFailure(error))
    return cyrnelError(
      'upstream_unauthorized',
      `authorizing with the MCP server of ${label} failed: ${message(error).slice(0, 500)}`,
    );
  return undefined;
}

/**
 * Create the connection of one service (or of one install's tool listing). Nothing is opened
 * before the first call.
 */
export function createConnection(options: ConnectionOptions): McpConnection {
  const { spec, label, logger } = options;
  let client: Client | undefined;
  let connecting: Promise<Client> | undefined;
  /** The client still connecting (spawned, its `initialize` not answered yet). */
  let handshaking: Client | undefined;
  let stdio: StdioTransport | undefined;
  let http: GuardedFetch | undefined;
  let failures = 0;
  let lastFailure = 0;
  let closed = false;

  /** A call failed because the server process exited: told apart, never with its output. */
  const crashed = (transport: StdioTransport | undefined, when: string): CyrnelError | undefined => {
    const exit = transport?.exit();
    if (!exit) return undefined;
    return cyrnelError(
      'upstream_crashed',
      `the MCP server of ${label} exited (${describeExit(exit)}) ${when}; its output is in the server log`,
    );
  };

  const drop = async () => {
    const current = client;
    // A connect in progress is cancelled too: its `initialize` fails at once rather than when the
    // server answers (or the connect deadline passes), and so do the calls waiting for it.
    const pending = handshaking;
    client = undefined;
    connecting = undefined;
    handshaking = undefined;
    await pending?.close().catch(() => undefined);
    const transports = [stdio, http];
    stdio = undefined;
    http = undefined;
    await current?.close().catch(() => undefined);
    await (transports[0] as StdioTransport | undefined)?.close().catch(() => undefined);
    await (transports[1] as GuardedFetch | undefined)?.close().catch(() => undefined);
  };

  /** A failure told apart: refused by policy, refused credentials, timed out, or the transport. */
  const classify = (error: unknown, signal?: AbortSignal, transport = stdio): CyrnelError => {
    if (isCyrnelError(error)) return error;
    const exited = crashed(transport, 'during the call');
    if (exited) return exited;
    for (const cause of causes(error)) {
      if (isCyrnelError(cause)) return cause;
      if (/^refusing to connect/.test(message(cause))) return cyrnelError('outbound_refused', message(cause));
    }
    const authorization = options.oauth ? authorizationFailure(options.oauth, error, label) : undefined;
    if (authorization) return authorization;
    if (
      http?.lastStatus() === 401 ||
      causes(error).some((cause) => (cause as { status?: number })?.status === 401)
    )
      return cyrnelError(
        'upstream_unauthorized',
        `the MCP server of ${label} refused the credentials (HTTP 401): check the service's secrets`,
      );
    if (signal?.aborted && isCyrnelError(signal.reason)) return signal.reason;
    return cyrnelError('upstream_failed', `the MCP server of ${label} failed: ${message(error)}`, {
      cause: error,
    });
  };

  const connect = async (): Promise<Client> => {
    if (closed) throw cyrnelError('module_torn_down', `the connection of ${label} is closed`);
    // Backoff after failures: 0, 0.5 s, 1 s, 2 s, … 30 s since the last failed attempt.
    const wait =
      failures === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 250 * 2 ** failures) - (Date.now() - lastFailure);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const next = new Client(
      { name: 'cyrnel', version: options.clientVersion },
      {
        jsonSchemaValidator: PASS_THROUGH_VALIDATOR,
        ...(options.onToolsChanged
          ? {
              listChanged: {
                tools: {
                  autoRefresh: false,
                  onChanged: () => options.onToolsChanged?.(),
                },
              },
            }
          : {}),
      },
    );
    let transport: StdioTransport | StreamableHTTPClientTransport;
    if (spec.transport === 'stdio') {
      assertCommandAllowed(spec, options.allowedCommands);
      stdio = createStdioTransport({
        ...spec,
        answers: options.answers,
        logger,
        label,
        maxMessageBytes: options.maxAnswerBytes,
      });
      transport = stdio;
    } else {
      http = createGuardedFetch(
        options.outbound,
        spec.url,
        options.maxAnswerBytes,
        (pieces, format) => options.answers.readBody(pieces, format),
        options.oauth ? { definitionHeaders: Object.keys(spec.headers) } : undefined,
      );
      transport = new StreamableHTTPClientTransport(new URL(spec.url), {
        fetch: http.fetch,
        requestInit: { headers: { ...spec.headers } },
        ...(options.oauth
          ? {
              authProvider: options.oauth.provider,
              maxStepUpRetries: 1,
              ...(options.oauth.skipIssuerMetadataValidation ? { skipIssuerMetadataValidation: true } : {}),
            }
          : {}),
      });
    }
    next.onclose = () => {
      // The server went away (a crash, a killed process): the next call connects again.
      if (client === next) {
        client = undefined;
        connecting = undefined;
      }
    };
    handshaking = next;
    try {
      await next.connect(transport, { timeout: options.connectTimeoutMs });
      if (closed || handshaking !== next) throw new Error('the connection was closed while it connected');
    } catch (error) {
      if (closed) {
        await next.close().catch(() => undefined);
        throw cyrnelError('module_torn_down', `the connection of ${label} was closed while it connected`);
      }
      const started = stdio;
      const refused = crashed(started, 'while starting') ?? classify(error);
      // Waiting for a person to authorize is no failure of the server: no backoff.
      if (!isAuthorizationNeeded(refused)) {
        failures++;
        lastFailure = Date.now();
      }
      await next.close().catch(() => undefined);
      await drop();
      throw refused.reason === 'upstream_failed'
        ? cyrnelError('upstream_failed', `could not connect to the MCP server of ${label}: ${message(error)}`)
        : refused;
    }
    handshaking = undefined;
    failures = 0;
    client = next;
    return next;
  };

  const connected = (): Promise<Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  /** A JSON-RPC error of the server (a tool-level failure): the connection stays. */
  const isProtocolError = (error: unknown): error is ProtocolError => error instanceof ProtocolError;

  return {
    async listTools(signal) {
      const current = await connected();
      try {
        return (await current.listTools(undefined, signal ? { signal } : {})).tools;
      } catch (error) {
        if (!isProtocolError(error)) await drop();
        throw classify(error, signal);
      }
    },
    async callTool(name, args, { signal, timeoutMs, meta }) {
      for (let attempt = 0; ; attempt++) {
        const current = await connected();
        const transport = stdio;
        try {
          // Over HTTP the trace context goes in the request's headers as well as in its `_meta`.
          return (await withTraceHeaders(http && meta, () =>
            current.callTool(
              { name, arguments: args, ...(meta ? { _meta: { ...meta } } : {}) },
              { timeout: timeoutMs, ...(signal ? { signal } : {}) },
            ),
          )) as CallToolResult;
        } catch (error) {
          if (signal?.aborted) throw signal.reason ?? error;
          if (isProtocolError(error)) {
            if (error.code === -32001)
              throw cyrnelError('invoke_timeout', `tool ${name} of ${label} timed out after ${timeoutMs} ms`);
            // The answer was skipped, the connection reads on: only this call fails.
            if (error.code === ANSWER_TOO_LARGE_CODE)
              throw cyrnelError('upstream_answer_too_large', `tool ${name} of ${label}: ${message(error)}`);
            throw cyrnelError(
              'upstream_failed',
              `the MCP server of ${label} refused tool ${name}: ${message(error)}`,
            );
          }
          if ((error as { code?: unknown })?.code === 'REQUEST_TIMEOUT')
            throw cyrnelError('invoke_timeout', `tool ${name} of ${label} timed out after ${timeoutMs} ms`);
          const failure = classify(error, signal, transport);
          // An HTTP answer past the bound was not read: the connection stays.
          if (failure.reason === 'upstream_answer_too_large') throw failure;
          await drop();
          // A request that never reached the server (a stale connection): connect again and
          // retry once. One in flight when the connection died fails: it may have run already.
          if (failure.reason === 'upstream_failed' && attempt === 0 && notDelivered(error)) {
            logger.warn('MCP connection failed; reconnecting once', {
              service: label,
              error: failure.message,
            });
            continue;
          }
          throw failure;
        }
      }
    },
    serverInfo() {
      const info = client?.getServerVersion();
      const instructions = client?.getInstructions();
      return {
        ...(info?.name ? { name: info.name } : {}),
        ...(typeof info?.title === 'string' ? { title: info.title } : {}),
        ...(info?.version ? { version: info.version } : {}),
        ...(instructions ? { instructions } : {}),
      };
    },
    async close() {
      closed = true;
      await drop();
    },
  };
}
