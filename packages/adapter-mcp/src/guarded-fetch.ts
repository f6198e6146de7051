import { isIP } from 'node:net';
import { cyrnelError, type OutboundPolicy } from '@cyrnel/sdk';
import { guardedLookup } from '@cyrnel/sdk/node';
import { Agent, fetch as undiciFetch } from 'undici';
import { traceHeaders } from './trace-headers';

/** Largest answer to one request of an HTTP MCP server (a message on stdio is bounded alike). */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * Reads a large answer body off the main thread (`AnswerReader.readBody`): the JSON text of its
 * messages, small, that the SDK reads instead.
 */
export type LargeBodyReader = (pieces: Uint8Array[], format: 'json' | 'sse') => Promise<string>;

/** Bodies up to this many bytes are handed to the SDK as they are. */
const SMALL_BODY_BYTES = 256 * 1024;

/** A POST's answer, read whole. */
interface WholeAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly chunks: Uint8Array[];
  readonly bytes: number;
}

/**
 * Send a POST and read its answer whole, bounded (the call's deadline still aborts it): an error
 * inside a stream the SDK is reading would not fail the pending request, a rejected fetch does.
 * undici's `request` (Node streams) rather than `fetch`: delivering megabytes through web
 * streams costs the main thread several times more.
 */
async function postWhole(
  agent: Agent,
  url: URL,
  init: RequestInit | undefined,
  maxBytes: number,
): Promise<WholeAnswer> {
  const sent = new Headers(init?.headers);
  const answer = await agent.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: Object.fromEntries(sent),
    body: typeof init?.body === 'string' ? init.body : init?.body == null ? null : String(init.body),
    ...(init?.signal ? { signal: init.signal } : {}),
  });
  const tooLarge = () =>
    cyrnelError('upstream_answer_too_large', `the MCP server's answer is larger than ${maxBytes} bytes`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || name.toLowerCase() === 'content-length') continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  if (Number(headers.get('content-length') ?? answer.headers['content-length']) > maxBytes) {
    answer.body.destroy();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of answer.body) {
    bytes += (chunk as Buffer).length;
    if (bytes > maxBytes) {
      answer.body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return { status: answer.statusCode, headers, chunks, bytes };
}

/** A `fetch` for the MCP SDK's HTTP transport, and what it saw. */
export interface GuardedFetch {
  readonly fetch: typeof globalThis.fetch;
  /** The status of the last answer: 401 tells a refused credential from a network failure. */
  lastStatus(): number | undefined;
  close(): Promise<void>;
}

/** Largest answer of an authorization server (metadata, registration, tokens). */
const MAX_AUTHORIZATION_ANSWER_BYTES = 1024 * 1024;

/** What an MCP server behind OAuth needs of the fetch besides its own origin. */
export interface AuthorizationRequests {
  /**
   * Header names of the definition (`headers`): sent to the MCP server only, never to an
   * authorization server on another origin.
   */
  readonly definitionHeaders: readonly string[];
}

/** The port a URL connects to. */
function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Where the MCP SDK's HTTP transport connects, checked like every outbound connection of cyrnel
 * (`context.outbound`): the server's endpoint only (one origin), an IP-literal host before each
 * request, a host name's every address at connect time (so rebinding cannot slip in), and no
 * redirects (a 3xx is an error the SDK reports). undici's own `fetch` with an `Agent` carrying the
 * lookup; without a policy, nothing but the origin is checked. The answer to a POST is bounded
 * (`maxResponseBytes`, `upstream_answer_too_large` beyond) and, when large, read by `readLarge`
 * off the main thread.
 */
export function createGuardedFetch(
  policy: OutboundPolicy | undefined,
  endpoint: string,
  maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
  readLarge?: LargeBodyReader,
  authorization?: AuthorizationRequests,
): GuardedFetch {
  const origin = new URL(endpoint);
  const port = portOf(origin);
  const agent = new Agent(policy ? { connect: { lookup: guardedLookup(policy, port) } } : {});
  const elsewhere = authorization ? createElsewhereFetch(policy, authorization) : undefined;
  let status: number | undefined;
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (url.origin !== origin.origin) {
      // An authorization server (its metadata, registration, tokens) named by the server's metadata.
      if (elsewhere) return elsewhere.fetch(url, init);
      throw cyrnelError(
        'outbound_refused',
        `refusing to connect to ${url.origin}: the service's MCP server is ${origin.origin}`,
      );
    }
    checkLiteral(policy, url, port);
    // A traced tools/call hands its trace to the server in headers too (`withTraceHeaders`).
    const trace = traceHeaders();
    if (trace) {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(trace)) headers.set(name, value);
      init = { ...init, headers };
    }
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST') {
      // The long-lived GET stream of server notifications (and DELETE) is not one answer.
      const response = await undiciFetch(url, {
        ...(init as Record<string, unknown>),
        redirect: 'manual',
        dispatcher: agent,
      } as Parameters<typeof undiciFetch>[1]);
      status = response.status;
      return response as unknown as Response;
    }
    const answer = await postWhole(agent, url, init, maxResponseBytes);
    status = answer.status;
    const type = (answer.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    const format = type === 'application/json' ? 'json' : type === 'text/event-stream' ? 'sse' : undefined;
    if (readLarge && format && answer.status < 300 && answer.bytes > SMALL_BODY_BYTES) {
      // Parsed and bounded in a worker; the SDK reads a batch of small messages instead.
      answer.headers.set('content-type', 'application/json');
      return new Response(await readLarge(answer.chunks, format), {
        status: answer.status,
        headers: answer.headers,
      });
    }
    return new Response(answer.status === 204 ? null : Buffer.concat(answer.chunks), {
      status: answer.status,
      headers: answer.headers,
    });
  };
  return {
    fetch: guarded as typeof globalThis.fetch,
    lastStatus: () => status,
    close: async () => {
      await agent.close();
      await elsewhere?.close();
    },
  };
}

/** An IP-literal host checked against the outbound policy before anything is sent. */
function checkLiteral(policy: OutboundPolicy | undefined, url: URL, port: number): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!policy || isIP(host) === 0) return;
  try {
    policy.check(host, port, url.hostname);
  } catch (refusal) {
    throw cyrnelError('outbound_refused', (refusal as Error).message);
  }
}

/**
 * Requests to authorization servers: any http(s) origin, checked by the outbound policy like the
 * MCP server's (one agent per port, its lookup guarded), without the definition's headers, no
 * redirects followed, answers read whole up to 1 MiB.
 */
function createElsewhereFetch(
  policy: OutboundPolicy | undefined,
  authorization: AuthorizationRequests,
): { fetch: (url: URL, init?: RequestInit) => Promise<Response>; close(): Promise<void> } {
  const agents = new Map<number, Agent>();
  const dropped = new Set(authorization.definitionHeaders.map((name) => name.toLowerCase()));
  const agentOf = (port: number): Agent => {
    let agent = agents.get(port);
    if (!agent) {
      agent = new Agent(policy ? { connect: { lookup: guardedLookup(policy, port) } } : {});
      agents.set(port, agent);
    }
    return agent;
  };
  return {
    async fetch(url, init) {
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw cyrnelError('outbound_refused', `refusing to connect to ${url.origin}: not http or https`);
      const port = portOf(url);
      checkLiteral(policy, url, port);
      const headers = new Headers(init?.headers);
      for (const name of dropped) headers.delete(name);
      const response = await undiciFetch(url, {
        ...(init as Record<string, unknown>),
        headers: Object.fromEntries(headers),
        redirect: 'manual',
        dispatcher: agentOf(port),
      } as Parameters<typeof undiciFetch>[1]);
      if (Number(response.headers.get('content-length')) > MAX_AUTHORIZATION_ANSWER_BYTES) {
        await response.body?.cancel();
        throw cyrnelError('upstream_answer_too_large', `the answer of ${url.origin} is too large`);
      }
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      for await (const chunk of response.body ?? []) {
        bytes += chunk.length;
        if (bytes > MAX_AUTHORIZATION_ANSWER_BYTES)
          throw cyrnelError('upstream_answer_too_large', `the answer of ${url.origin} is too large`);
        chunks.push(chunk);
      }
      const body = [101, 204, 205, 304].includes(response.status) ? null : Buffer.concat(chunks);
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers as unknown as Headers,
      });
    },
    async close() {
      await Promise.all([...agents.values()].map((agent) => agent.close()));
    },
  };
}
