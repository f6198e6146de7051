import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './helpers';

// One ranked search behind GET /tools?query= and cyrnel.discover.tools.

const RESOURCES = ['issues', 'pulls', 'repos', 'gists', 'comments', 'labels', 'releases', 'webhooks'];
const ACTIONS = [
  ['get', 'get', 'Get a'],
  ['post', 'create', 'Create a'],
  ['patch', 'update', 'Update a'],
  ['delete', 'delete', 'Delete a'],
] as const;

/** A tracker API: every action on every resource, with ids, summaries, descriptions and tags. */
function trackerSpec(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const resource of RESOURCES) {
    const one = resource.replace(/s$/, '');
    paths[`/repos/{owner}/{repo}/${resource}`] = {
      get: {
        operationId: `${resource}_list`,
        summary: `List ${resource}`,
        description: `Lists the ${resource} of a repository, newest first.`,
        tags: [resource],
        responses: { '200': { description: 'ok' } },
      },
    };
    const item: Record<string, unknown> = {};
    for (const [method, verb, phrase] of ACTIONS) {
      item[method] = {
        operationId: `${resource}_${verb}`,
        summary: `${phrase} ${one}`,
        description: `${phrase} ${one} of a repository. Needs the ${resource} scope.`,
        tags: [resource],
        responses: { '200': { description: 'ok' } },
      };
    }
    paths[`/repos/{owner}/{repo}/${resource}/{number}`] = item;
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Tracker', version: '1.0.0' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths,
  };
}

describe('tool search (GET /tools?query= and cyrnel.discover.tools)', () => {
  const { api } = useServer();

  beforeAll(async () => {
    const definition = JSON.stringify(trackerSpec());
    for (const [id, enabled] of [
      ['tracker', true],
      ['mirror', true],
      ['archive', false],
    ] as const) {
      const installed = await api('POST', '/services', { id, adapter: 'openapi', definition, enabled });
      expect(installed.status).toBe(201);
    }
    expect((await api('POST', '/tools/mirror/issues_create/enabled', { enabled: false })).status).toBe(200);
  });

  const overHttp = async (query: string, limit: number) => {
    const response = await api('GET', `/tools?query=${encodeURIComponent(query)}&limit=${limit}`);
    expect(response.status, query).toBe(200);
    return (response.body.items as { serviceId: string; id: string }[]).map((t) => `${t.serviceId}.${t.id}`);
  };

  const inSandbox = async (queries: readonly string[], limit: number) => {
    const code = `
      const found = [];
      for (const query of ${JSON.stringify(queries)}) {
        const tools = await cyrnel.discover.tools({ query, limit: ${limit} });
        found.push(tools.map((t) => t.serviceId + '.' + t.toolId));
      }
      cyrnel.output({ found });
    `;
    const run = await api('POST', '/processes', { code, wait: true });
    expect(run.body.exitState, JSON.stringify(run.body.error)).toBe('success');
    return run.body.output.found as string[][];
  };

  it('answers the same tools in the same order over HTTP and in the sandbox', async () => {
    const queries = [
      'create issue',
      'issues_create',
      'tracker.issues_create',
      'Update a label',
      'list',
      'webhook',
      'repository scope',
      'relese',
      'frobnicate',
      'NEAR("issue" OR -label:*',
    ];
    const sandbox = await inSandbox(queries, 50);
    for (const [i, query] of queries.entries()) {
      expect(await overHttp(query, 50), query).toEqual(sandbox[i]);
    }
    expect(sandbox[0]?.slice(0, 1)).toEqual(['tracker.issues_create']);
    expect(sandbox[1]?.slice(0, 1)).toEqual(['tracker.issues_create']);
    expect(sandbox[8]).toEqual([]);
    // Disabled tools and services never appear.
    for (const found of sandbox) {
      expect(found.filter((name) => name === 'mirror.issues_create' || name.startsWith('archive.'))).toEqual(
        [],
      );
    }
  });

  it('answers at most limit tools, not cursor-paged, and refuses a cursor with a query', async () => {
    const page = await api('GET', '/tools?query=repository&limit=3');
    expect(page.body).toMatchObject({ nextCursor: null, hasMore: true });
    expect(page.body.items).toHaveLength(3);
    const cursor = await api('GET', '/tools?query=repository&cursor=WyJhIiwiYiJd');
    expect(cursor).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    const disabled = await api('GET', '/tools?query=repository&enabled=false');
    expect(disabled).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    // Without a query, the listing keeps its cursor.
    expect((await api('GET', '/tools?limit=3')).body).toMatchObject({
      hasMore: true,
      nextCursor: expect.any(String),
    });
  });

  it('answers hostile and oversized queries with 200', async () => {
    for (const query of ['"', '*', 'NEAR(', 'OR', '-', ':', '{id}:x', `${'issue '.repeat(2000)}`, '\u0000']) {
      const response = await api('GET', `/tools?query=${encodeURIComponent(query)}`);
      expect(response.status, query).toBe(200);
    }
  });
});
