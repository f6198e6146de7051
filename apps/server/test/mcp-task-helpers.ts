import { Client, StreamableHTTPClientTransport, specTypeSchemas } from '@modelcontextprotocol/client';
import { type Json, parseSse, type Upstream } from './helpers';

/** The Tasks extension of 2026-07-28, as a client declares it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Calls the upstream over and over (`/users/1`, `/users/2`, …) until it is stopped. */
export const LOOP = `
for (let i = 1; ; i++) {
  await cyrnel.services.shop.tools.getUser.invoke({ path: { id: i } });
  await new Promise((resolve) => setTimeout(resolve, 10));
}`;

/** Prints three lines a little apart, then outputs; long enough to be seen running. */
export const PRINTING = `
for (const step of ['one', 'two', 'three']) {
  console.log(step);
  await new Promise((resolve) => setTimeout(resolve, 300));
}
await new Promise((resolve) => setTimeout(resolve, 1500));
cyrnel.output({ done: true });`;

/** How many user lookups reached the upstream. */
export const userCalls = (upstream: Upstream) =>
  upstream.requests.filter((line) => line.startsWith('GET /users/')).length;

/** Look again (every 50 ms, at most `tries` times) until `done` holds; the last value either way. */
export async function eventually<T>(look: () => Promise<T>, done: (value: T) => boolean, tries = 400) {
  let value = await look();
  for (let i = 0; i < tries && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await look();
  }
  return value;
}

/** An official v2 client of the 2025 handshake (2025-11-25), connected to `/mcp` with `key`. */
export async function legacyClient(serverUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'tasks-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/**
 * The 2025-11-25 task requests through a v2 client (which has them as wire types, not methods):
 * each sent with `client.request` and the SDK's own schema of its result.
 */
export function legacyTasks(client: Client) {
  const send = (method: string, params: Json, schema: Json, options?: Json): Promise<Json> =>
    client.request({ method, params } as never, schema, options);
  return {
    create: (code: string, args: Json = {}) =>
      send(
        'tools/call',
        { name: 'execute_typescript', arguments: { code, ...args }, task: { ttl: 60_000 } },
        specTypeSchemas.CreateTaskResult,
      ),
    get: (taskId: string) => send('tasks/get', { taskId }, specTypeSchemas.GetTaskResult),
    result: (taskId: string, options?: Json) =>
      send('tasks/result', { taskId }, specTypeSchemas.GetTaskPayloadResult, options),
    list: (cursor?: string) =>
      send('tasks/list', cursor === undefined ? {} : { cursor }, specTypeSchemas.ListTasksResult),
    cancel: (taskId: string) => send('tasks/cancel', { taskId }, specTypeSchemas.CancelTaskResult),
  };
}

/** The error a promise rejects with (a JSON-RPC error carries its `code`), or its value. */
export const outcome = (promise: Promise<unknown>): Promise<Json> =>
  promise.then(
    (value) => ({ value }),
    (error: Json) => ({ code: error?.code, message: String(error?.message ?? error) }),
  );

/**
 * A 2026-07-28 client over raw HTTP: each request carries the per-request envelope (protocol
 * version, client capabilities: by default the Tasks extension) and the standard headers
 * (`Mcp-Method`, and `Mcp-Name` for a tool call or a task request); answers the JSON-RPC response.
 */
export function modernPoster(
  serverUrl: string,
  key: string,
  capabilities: Json = { extensions: { [TASKS_EXTENSION]: {} } },
) {
  let id = 0;
  return async (method: string, params: Json, declared: Json = capabilities): Promise<Json> => {
    const name = method === 'tools/call' ? params.name : params.taskId;
    const requestId = ++id;
    const response = await fetch(`${serverUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: requestId,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': declared,
            'io.modelcontextprotocol/clientInfo': { name: 'tasks-raw', version: '1.0.0' },
          },
        },
      }),
    });
    const text = await response.text();
    const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? parseSse(text).map((event) => event.data)
      : [JSON.parse(text)];
    return messages.find((message: Json) => message.id === requestId);
  };
}
