import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './helpers';

// Framing headers and credentials taken from tool parameters let agent code
// smuggle a request onto a pooled keep-alive socket (where it absorbed another call's API key),
// or send its own credential instead of (or beside) the operator's. Against a real server and a
// real keep-alive upstream on 127.0.0.1.

const SECRET = 'operator-secret';
const COOKIE_SECRET = 'operator-cookie';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

async function startUpstream(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A document that declares framing headers, a parameter named like its query credential, and free-form
 * objects whose keys become query and cookie names (exploded form style).
 */
const spec = (base: string) => ({
  openapi: '3.0.3',
  info: { title: 'Notes', version: '1' },
  servers: [{ url: base }],
  components: {
    securitySchemes: {
      key: { type: 'apiKey', in: 'query', name: 'api_key' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid' },
    },
  },
  security: [{ key: [], session: [] }],
  paths: {
    '/notes': {
      post: {
        operationId: 'addNote',
        parameters: [
          { name: 'Content-Length', in: 'header', schema: { type: 'string' } },
          { name: 'Transfer-Encoding', in: 'header', schema: { type: 'string' } },
          { name: 'Host', in: 'header', schema: { type: 'string' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
          { name: 'api_key', in: 'query', schema: { type: 'string' } },
          { name: 'filter', in: 'query', style: 'form', explode: true, schema: { type: 'object' } },
          { name: 'prefs', in: 'cookie', style: 'form', explode: true, schema: { type: 'object' } },
        ],
        requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
});

const ATTACK = `
const smuggled = 'x\\r\\n\\r\\nGET /steal HTTP/1.1\\r\\nHost: upstream\\r\\nX-Absorb: ';
const attempts = {
  contentLength: { headers: { 'Content-Length': '0' }, body: smuggled },
  transferEncoding: { headers: { 'Transfer-Encoding': 'chunked' }, body: '0\\r\\n\\r\\nGET /steal HTTP/1.1\\r\\n\\r\\n' },
  host: { headers: { Host: 'internal.example' }, body: 'hello' },
  lowerCase: { headers: { 'content-length': '1' }, body: smuggled },
  crlfInValue: { headers: { 'X-Trace': 'a\\r\\nContent-Length: 0' }, body: smuggled },
  ownKey: { query: { api_key: 'attacker-key' }, body: 'mine' },
  explodedKey: { query: { filter: { api_key: 'attacker-key', other: '1' } }, body: 'mine' },
  explodedCookie: { cookies: { prefs: { sid: 'attacker-cookie' } }, body: 'mine' },
};
const results = {};
for (const [name, parameters] of Object.entries(attempts)) {
  try {
    const answer = await cyrnel.services.notes.tools.addNote.invoke(parameters);
    results[name] = 'sent ' + answer.status;
  } catch (error) {
    results[name] = error.status + ' ' + error.reason + ' ' + error.message;
  }
}
// A well-behaved call after the attempts, on the same pooled connection.
results.after = (await cyrnel.services.notes.tools.addNote.invoke({
  headers: { 'X-Trace': 't1' },
  query: { filter: { q: 'x' } },
  cookies: { prefs: { theme: 'dark' } },
  body: 'fine',
})).status;
cyrnel.output(results);
`;

let upstream: Awaited<ReturnType<typeof startUpstream>>;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream.close();
});

// Both paths of a tool call: made by the sandbox process itself, or by the server.
describe.each([
  { path: 'direct calls', noDirectToolCalls: false },
  { path: 'calls through the server', noDirectToolCalls: true },
])('tool calls cannot smuggle requests or override credentials ($path)', ({ noDirectToolCalls }) => {
  const { api } = useServer({ allowPrivateUrls: true, noDirectToolCalls });

  it('leaves framing headers out of the schema and refuses them, sends the credential exactly once', async () => {
    upstream.seen.length = 0;
    const installed = await api('POST', '/services', {
      id: 'notes',
      adapter: 'openapi',
      definition: JSON.stringify(spec(upstream.url)),
      secrets: { key: SECRET, session: COOKIE_SECRET },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    const tool = await api('GET', '/tools/notes/addNote');
    const headerSlot = tool.body.inputSchema.properties.headers?.properties ?? {};
    expect(Object.keys(headerSlot)).toEqual(['X-Trace']);
    expect(Object.keys(tool.body.inputSchema.properties.query?.properties ?? {})).toEqual(['filter']);
    expect(tool.body.description).toMatch(/Content-Length/);

    const run = await api('POST', '/processes', { code: ATTACK, wait: true });
    expect(run.body.exitState).toBe('success');
    const results = run.body.output as Record<string, string | number>;
    for (const name of ['contentLength', 'transferEncoding', 'host', 'lowerCase', 'crlfInValue', 'ownKey']) {
      expect({ name, result: results[name] }).toEqual({
        name,
        result: expect.stringMatching(/^(400|502) /),
      });
    }
    // An object parameter whose key is the credential's name is refused as invalid parameters.
    for (const name of ['explodedKey', 'explodedCookie'])
      expect({ name, result: results[name] }).toEqual({
        name,
        result: expect.stringMatching(
          /^400 invalid_parameters (query parameter 'filter'|cookie parameter 'prefs') is not allowed/,
        ),
      });
    expect(JSON.stringify(results)).not.toContain(SECRET);
    expect(results.after).toBe(200);

    // The upstream saw exactly the one well-behaved request: nothing smuggled, nothing absorbed.
    expect(upstream.seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      `POST /notes?q=x&api_key=${SECRET}`,
    ]);
    const [only] = upstream.seen;
    expect(only?.body).toBe('fine');
    expect(only?.headers['x-trace']).toBe('t1');
    expect(only?.headers.host).toBe(new URL(upstream.url).host);
    expect(only?.headers['content-length']).toBe('4');
    expect(only?.headers.cookie).toBe(`theme=dark; sid=${COOKIE_SECRET}`);
  });
});
