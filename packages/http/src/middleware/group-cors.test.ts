import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../app-env';
import { groupCors } from './group-cors';
import { middlewareTestApp } from './middleware-test-app';

const CORS = {
  allowMethods: ['GET', 'POST'],
  allowHeaders: ['Authorization', 'Mcp-Session-Id'],
  exposeHeaders: ['Mcp-Session-Id'],
};

describe('groupCors', () => {
  const app = middlewareTestApp(
    groupCors({
      groups: [
        { path: '/mcp', app: new Hono<AppEnv>(), cors: CORS },
        { path: '/ui', app: new Hono<AppEnv>() },
      ],
      allowedOrigins: ['https://app.example.com'],
    }),
  );
  const preflight = (path: string, origin: string) =>
    app.request(`http://x${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });

  it("answers the preflight of an allowed origin on a group that asks for CORS, with the group's methods and headers", async () => {
    const answer = await preflight('/mcp', 'https://app.example.com');
    expect(answer.status).toBe(204);
    expect(Object.fromEntries(answer.headers)).toMatchObject({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'Authorization, Mcp-Session-Id',
    });
  });

  it('allows the origin and exposes the headers on every other answer, errors included', async () => {
    const answer = await app.request('http://x/mcp/anything', {
      method: 'POST',
      headers: { origin: 'https://app.example.com:443' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com:443');
    expect(answer.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id');
    expect(answer.headers.get('vary')).toBe('Origin');
  });

  it('sends no CORS header to another origin, on another group, or without an Origin', async () => {
    for (const answer of [
      await preflight('/mcp', 'https://evil.example.com'),
      await preflight('/ui', 'https://app.example.com'),
      await preflight('/mcpx', 'https://app.example.com'),
      await app.request('http://x/mcp', { method: 'POST' }),
    ])
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
