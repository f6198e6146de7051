import { describe, expect, it } from 'vitest';
import { jsonContentType } from './json-content-type';
import { middlewareTestApp } from './middleware-test-app';

describe('jsonContentType', () => {
  const app = middlewareTestApp(jsonContentType());
  const post = (headers: Record<string, string>, body?: string, method = 'POST') =>
    app.request('/services', { method, headers, ...(body === undefined ? {} : { body }) });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset="UTF-8"',
    'application/json; charset=utf8',
  ])('accepts %s', async (type) => {
    expect((await post({ 'content-type': type }, '{}')).status).toBe(200);
  });

  it('accepts an empty request without a Content-Type (curl -X POST)', async () => {
    expect((await post({})).status).toBe(200);
    expect((await post({ 'content-length': '0' }, undefined, 'DELETE')).status).toBe(200);
  });

  it.each([
    'text/plain',
    'text/plain;charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'application/json; charset=latin1',
    'application/json, text/plain',
    'application/merge-patch+json',
  ])('refuses %s with 415 unsupported_media_type, even with an empty body', async (type) => {
    for (const body of ['{}', undefined]) {
      for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) {
        const response = await post({ 'content-type': type }, body, method);
        expect(response.status).toBe(415);
        expect(await response.json()).toEqual({
          error: expect.stringContaining('application/json'),
          code: 'unsupported_media_type',
          reason: 'unsupported_media_type',
        });
      }
    }
  });

  it('refuses a body without a Content-Type, by length or chunked', async () => {
    const cases: Record<string, string>[] = [{ 'content-length': '2' }, { 'transfer-encoding': 'chunked' }];
    for (const headers of cases) {
      const response = await post(headers, undefined);
      expect(response.status).toBe(415);
    }
  });

  it('leaves reads alone', async () => {
    expect((await app.request('/services', { headers: { 'content-type': 'text/plain' } })).status).toBe(200);
  });
});
