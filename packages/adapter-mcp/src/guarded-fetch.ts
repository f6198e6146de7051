import { isIP } from 'node:net';
import { cyrnelError, type OutboundPolicy } from '@cyrnel/sdk';
import { guardedLookup } from '@cyrnel/sdk/node';
import { Agent, fetch as undiciFetch } from 'undici';

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
): GuardedFetch {
  const origin = new URL(endpoint);
  const port = portOf(origin);
  const agent = new Agent(policy ? { connect: { lookup: guardedLookup(policy, port) } } : {});
  let status: number | undefined;
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (url.origin !== origin.origin)
      throw cyrnelError(
        'outbound_refused',
        `refusing to connect to ${url.origin}: the service's MCP server is ${origin.origin}`,
      );
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (policy && isIP(host) !== 0) {
      try {
        policy.check(host, port, url.hostname);
      } catch (refusal) {
        throw cyrnelError('outbound_refused', (refusal as Error).message);
      }
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
    close: () => agent.close(),
  };
}
