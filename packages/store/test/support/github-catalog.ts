import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { generateDefinition } from '@cyrnel/adapter-openapi';
import type { NewService, NewTool } from '@cyrnel/core';

// GitHub's REST description (a dev-only fixture): ~1,200 real operations, the tools of the
// search tests on both dialects. Schemas are left out: search never reads them.
const require = createRequire(import.meta.url);

/** The definition generated from GitHub's REST description. */
export const github = generateDefinition(
  readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8'),
);

/** A tool to insert, without schemas. */
export function searchTool(
  id: string,
  name: string,
  description: string,
  keywords?: readonly string[],
): NewTool {
  return {
    id,
    name,
    description,
    enabled: true,
    inputSchema: {},
    outputSchema: {},
    adapterDomain: {},
    ...(keywords ? { keywords } : {}),
  };
}

/** GitHub's operations as tools to insert. */
export const githubTools: readonly NewTool[] = github.tools.map((tool) =>
  searchTool(tool.id, tool.name, tool.description, tool.keywords),
);

/** An enabled OpenAPI service `id` holding `tools`, named as GitHub's description, with `overrides`. */
export function searchService(
  id: string,
  tools: readonly NewTool[],
  overrides: Partial<NewService> = {},
): NewService {
  return {
    id,
    adapter: 'openapi',
    enabled: true,
    name: github.name,
    description: github.description,
    hash: 'hash',
    source: null,
    definition: '',
    configSchema: {},
    secretsSchema: {},
    adapterDomain: {},
    tools,
    config: {},
    secrets: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}
