import type { NewService, NewTool } from '../index';

const AT = '2026-01-01T00:00:00.000Z';

/** A tool to insert, with `fields` over the defaults. */
export function newTool(id: string, fields: Partial<NewTool> = {}): NewTool {
  return {
    id,
    name: `Tool ${id}`,
    description: `does ${id}`,
    enabled: true,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    outputSchema: { $ref: '#/$defs/result' },
    adapterDomain: { route: `/${id}` },
    ...fields,
  };
}

/** A service to insert (three tools, shared schemas, config, no secrets), with `fields` over the defaults. */
export function newService(id: string, fields: Partial<NewService> = {}): NewService {
  return {
    id,
    adapter: 'openapi',
    enabled: false,
    name: `Service ${id}`,
    description: `the ${id} service`,
    hash: 'a'.repeat(64),
    source: null,
    definition: `{"service":"${id}"}`,
    configSchema: { type: 'object', properties: { region: { type: 'string' } } },
    secretsSchema: { type: 'object' },
    adapterDomain: { baseUrl: `https://${id}.example.com` },
    schemas: { result: { type: 'object', properties: { ok: { type: 'boolean' } } } },
    adapterVersion: '1.0.0',
    registry: null,
    tools: [
      newTool('issues_create'),
      newTool('issues_list'),
      newTool('repos_get', { keywords: ['repository', 'fetch'] }),
    ],
    config: { region: 'eu' },
    secrets: null,
    createdAt: AT,
    ...fields,
  };
}
