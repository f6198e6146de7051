import { type CyrnelHost, createKeyRing, createMemoryKeyStorage } from '@cyrnel/core';
import { API_ROUTES, listRoutes } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { apiHandlers } from './api-handlers';
import { createEventStreamBudget } from './event-stream-budget';
import { createRouteContext } from './route-context';

// The handlers only close over the host: none is called here.
const host = {} as CyrnelHost;

describe('apiHandlers', () => {
  const ctx = createRouteContext({
    host,
    logger: { info() {}, warn() {}, error() {} },
    maxBodyBytes: 1024,
    maxJsonDepth: 64,
    maxJsonElements: 1000,
    maxDefinitionBytes: 1024,
    downloadTimeoutMs: 1000,
    outbound: { check() {} },
    waitMarginMs: 0,
    heartbeatMs: 1000,
    maxEventQueueBytes: 1024,
    maxEventStreams: 1,
    maxEventBufferBytes: 1024,
    eventStreams: createEventStreamBudget({ maxStreams: 1, maxBytes: 1024 }),
  });

  it('has one handler for every route of the table, and none for a route it does not have', () => {
    const handlers = apiHandlers(ctx, {
      document: { openapi: '3.1.0', info: { title: 't', version: '0' } },
      keys: createKeyRing({ storage: createMemoryKeyStorage() }),
      metrics: { contentType: 'text/plain', text: async () => '' },
      logs: { capacity: 1, lines: () => [], subscribe: () => () => {} },
    });
    const handled = Object.entries(handlers).flatMap(([resource, group]) =>
      Object.keys(group).map((name) => `${resource}.${name}`),
    );
    const described = listRoutes().map(({ resource, name }) => `${resource}.${name}`);
    expect(handled.sort()).toEqual(described.sort());
  });

  it('serves /keys and /principals only with a key ring, /metrics and /logs only with their sources', () => {
    const handlers = apiHandlers(ctx, { document: { openapi: '3.1.0', info: { title: 't', version: '0' } } });
    expect(Object.keys(handlers).sort()).toEqual(
      Object.keys(API_ROUTES)
        .filter((resource) => !['keys', 'principals', 'metrics', 'logs'].includes(resource))
        .sort(),
    );
  });
});
