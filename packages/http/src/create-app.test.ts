import type { CyrnelHost } from '@cyrnel/core';
import { cyrnelError } from '@cyrnel/core';
import { describe, expect, it } from 'vitest';
import { createApp } from './create-app';

// The route-by-route suite runs against the real host in apps/server. These cases cover
// what the HTTP layer decides on its own, before or instead of the host: a host whose
// every method throws stands in, so a passing case proves the host was not needed.
const throwingHost = (error: () => unknown): CyrnelHost => {
  const group = new Proxy({}, { get: () => async () => Promise.reject(error()) });
  return new Proxy({} as CyrnelHost, { get: () => group });
};

describe('createApp', () => {
  const logs: Record<string, unknown>[] = [];
  const logger = {
    info: (msg: string, fields?: Record<string, unknown>) => logs.push({ msg, ...fields }),
    warn: (msg: string, fields?: Record<string, unknown>) => logs.push({ msg, ...fields }),
    error: (msg: string, fields?: Record<string, unknown>) => logs.push({ msg, ...fields }),
  };
  const app = createApp(
    throwingHost(() => new Error('database exploded at /secret/path')),
    { apiKey: 'sesame', logger, maxBodyBytes: 100 },
  );
  const auth = { authorization: 'Bearer sesame' };
  const json = { ...auth, 'content-type': 'application/json' };

  it('serves /health without a key and echoes a sane request id', async () => {
    const response = await app.request('/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-request-id')).toBe('abc-123');
  });

  it('replaces an insane request id with a generated one', async () => {
    const response = await app.request('/health', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 401 in the envelope without or with a wrong key', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic sesame' }]) {
      const response = await app.request('/modules', { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: expect.any(String),
        code: 'unauthorized',
        reason: 'unauthorized',
      });
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('answers unknown routes and methods with a 404 envelope', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['PUT', '/modules'],
      ['DELETE', '/tools'],
    ] as const) {
      const response = await app.request(path, { method, headers: auth });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: `no route for ${method} ${path}`,
        code: 'not_found',
        reason: 'route_not_found',
      });
    }
  });

  it('leads GET / to rootRedirect without a key when given, and answers it 404 otherwise', async () => {
    const withUi = createApp(
      throwingHost(() => new Error('unused')),
      { apiKey: 'sesame', rootRedirect: '/ui/' },
    );
    for (const method of ['GET', 'HEAD']) {
      const response = await withUi.request('/', { method });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/ui/');
    }
    // Only `/` itself, and only to read: every other path and method is as before.
    expect((await withUi.request('/', { method: 'POST', headers: json, body: '{}' })).status).toBe(404);
    expect((await withUi.request('/services')).status).toBe(401);
    // The Host check still comes first.
    expect((await withUi.request('/', { headers: { host: 'rebound.example' } })).status).toBe(403);
    const response = await app.request('/', { headers: auth });
    expect({
      status: response.status,
      reason: ((await response.json()) as { reason: string }).reason,
    }).toEqual({
      status: 404,
      reason: 'route_not_found',
    });
  });

  it('turns unexpected errors into a generic 500 and logs them with the request id', async () => {
    const response = await app.request('/modules', { headers: { ...auth, 'x-request-id': 'req-500' } });
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: string; code: string };
    expect(body).toEqual({
      error: 'internal error (request id req-500)',
      code: 'internal',
      reason: 'internal',
    });
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'unhandled error', requestId: 'req-500' }));
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'request',
        method: 'GET',
        path: '/modules',
        status: 500,
        requestId: 'req-500',
      }),
    );
  });

  it('refuses what a browser on another site sends before the key or the host is looked at', async () => {
    const cases: [Record<string, string>, number, string][] = [
      [{ host: 'rebound.example:9371' }, 403, 'forbidden'],
      [
        { host: '127.0.0.1:9371', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
        403,
        'forbidden',
      ],
      [{ host: '127.0.0.1:9371', 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
    ];
    for (const [headers, status, code] of cases) {
      const response = await app.request('/processes', { method: 'POST', headers, body: '{"code":"1"}' });
      expect({ status: response.status, body: await response.json() }).toEqual({
        status,
        // Each of these codes has the reason of the same name.
        body: { error: expect.any(String), code, reason: code },
      });
    }
  });

  it('answers every 429 with Retry-After in seconds', async () => {
    const busy = createApp(throwingHost(() => cyrnelError('too_many_processes', 'too many live processes')));
    const response = await busy.request('/processes', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"code":"1"}',
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  });

  it('maps typed errors to their status and code', async () => {
    const typed = createApp(throwingHost(() => cyrnelError('service_not_found', 'service x not found')));
    const response = await typed.request('/services/x');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'service x not found',
      code: 'not_found',
      reason: 'service_not_found',
    });
  });

  // What a body means (JSON Patch documents, process and key requests) the host checks: see
  // packages/core/test/request-validation.test.ts. Here: transport, queries and route-only fields.
  it('validates bodies and queries before reaching the host', async () => {
    const cases: [string, RequestInit, number, string][] = [
      ['/modules?limit=0', {}, 400, 'limit'],
      ['/tools?enabled=yes', {}, 400, 'enabled'],
      ['/processes/abc', {}, 400, 'id'],
      ['/services/x/enabled', { method: 'POST', body: '{"enabled":"true"}' }, 400, 'enabled'],
      ['/services/x/enabled', { method: 'POST', body: '{"enabled":true,"x":1}' }, 400, 'x'],
      ['/services/x/enabled', { method: 'POST', body: '{"enabled":' }, 400, 'malformed JSON'],
      ['/modules/reload', { method: 'POST', body: '{"force":true}' }, 400, 'force unknown field'],
      ['/modules/reload', { method: 'POST', body: '[]' }, 400, 'JSON object'],
      ['/processes', { method: 'POST', body: JSON.stringify({ code: 'x'.repeat(200) }) }, 413, 'larger'],
    ];
    for (const [path, init, status, needle] of cases) {
      const response = await app.request(path, { ...init, headers: json });
      const body = (await response.json()) as { error: string; code: string };
      expect({ path, status: response.status }).toEqual({ path, status });
      expect(body.error).toContain(needle);
    }
  });

  it('answers bodies beyond maxBodyBytes with 413, declared or streamed, before the host is asked', async () => {
    const expect413 = async (response: Response) => {
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({
        error: 'the request body is larger than 100 bytes',
        code: 'payload_too_large',
        reason: 'payload_too_large',
      });
    };
    const declared = JSON.stringify({ code: 'x'.repeat(200) });
    await expect413(
      await app.request('/processes', {
        method: 'POST',
        headers: { ...json, 'content-length': String(declared.length) },
        body: declared,
      }),
    );
    // Chunked: no length declared; the limit cuts the stream off as it arrives.
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"code":"${'x'.repeat(60)}`));
        controller.enqueue(new TextEncoder().encode(`${'x'.repeat(60)}"}`));
        controller.close();
      },
    });
    await expect413(
      await app.request('/processes', {
        method: 'POST',
        headers: json,
        body: chunks,
        duplex: 'half',
      } as RequestInit),
    );
    // A body within the limit reaches the host (which throws here: a 500 without the details).
    const small = await app.request('/services/x/config', { method: 'PATCH', headers: json, body: '[]' });
    expect(small.status).toBe(500);
  });
});
