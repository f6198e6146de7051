import { describe, expect, it } from 'vitest';
import type { ToolRow } from './catalog-storage';
import { indexTools, rankTools } from './rank-tools';

const tool = (serviceId: string, id: string, name: string, description: string): ToolRow => ({
  serviceId,
  id,
  name,
  description,
  enabled: true,
  serviceEnabled: true,
  adapter: 'openapi',
});

const tools = indexTools([
  tool('github', 'listIssues', 'List issues', 'Lists issues of a repository'),
  tool('github', 'issues', 'Issues', 'Everything about issues'),
  tool('jira', 'search', 'Search', 'Find issues with JQL'),
  tool('weather', 'forecast', 'Forecast', 'Weather for a city'),
]);

describe('rankTools', () => {
  it('puts an exact id match first, then id, name and description matches', () => {
    expect(rankTools(tools, 'issues').map((t) => t.id)).toEqual(['issues', 'listIssues', 'search']);
    expect(rankTools(tools, 'github.listissues').map((t) => t.id)).toEqual(['listIssues']);
  });

  it('matches every word of a multi-word query', () => {
    expect(rankTools(tools, 'weather city').map((t) => t.id)).toEqual(['forecast']);
    expect(rankTools(tools, 'weather repository')).toEqual([]);
  });

  it('answers at most limit tools', () => {
    expect(rankTools(tools, 'issues', 2).map((t) => t.id)).toEqual(['issues', 'listIssues']);
    expect(rankTools(tools, '', 1).map((t) => t.id)).toEqual(['listIssues']);
  });

  it('keeps the stable order for an empty query', () => {
    expect(rankTools(tools, '  ').map((t) => t.id)).toEqual(['listIssues', 'issues', 'search', 'forecast']);
  });
});
