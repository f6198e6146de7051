import { describe, expect, it } from 'vitest';
import { ERROR_REASONS } from '../errors';
import { routeReasons } from '../route-reasons';
import { API_ROUTES, listRoutes } from './api-routes';

describe('API_ROUTES', () => {
  const routes = listRoutes();

  it('names each method and path once', () => {
    const keys = routes.map(({ route }) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('declares exactly the parameters of each path, and only known reasons', () => {
    for (const { resource, name, route } of routes) {
      const names = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]);
      expect(Object.keys(route.params).sort(), `${resource}.${name}`).toEqual(names.sort());
      for (const reason of route.reasons) expect(Object.hasOwn(ERROR_REASONS, reason), reason).toBe(true);
    }
  });

  it('gives JSON answers a schema and nothing else one', () => {
    for (const { resource, name, route } of routes)
      expect(route.answer.schema !== undefined, `${resource}.${name}`).toBe(route.answer.media === 'json');
  });
});

describe('routeReasons', () => {
  it('adds what every route with a key, a body, a query or a checked parameter can answer', () => {
    expect(routeReasons(API_ROUTES.meta.health)).toEqual(['forbidden', 'internal']);
    expect(routeReasons(API_ROUTES.keys.delete)).toEqual([
      'unauthorized',
      'forbidden',
      'key_not_found',
      'last_admin',
      'unsupported_media_type',
      'internal',
    ]);
    expect(routeReasons(API_ROUTES.processes.kill)).toEqual([
      'invalid_request',
      'unauthorized',
      'forbidden',
      'process_not_found',
      'process_not_running',
      'payload_too_large',
      'unsupported_media_type',
      'internal',
    ]);
  });

  it('lists each reason once, in the order of ERROR_REASONS', () => {
    const order = Object.keys(ERROR_REASONS);
    for (const { route } of listRoutes()) {
      const reasons = routeReasons(route);
      expect(reasons).toEqual([...new Set(reasons)].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
    }
  });
});
