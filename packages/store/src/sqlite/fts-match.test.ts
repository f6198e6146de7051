import { parseSearch } from '@cyrnel/core';
import { describe, expect, it } from 'vitest';
import { ftsMatch, hasPrefix } from './fts-match';

const terms = (query: string) => parseSearch(query).terms;

describe('ftsMatch', () => {
  it('quotes every word and joins them with AND or OR', () => {
    expect(ftsMatch(terms('create issue'), 'all')).toBe('"create" AND "issue"');
    expect(ftsMatch(terms('create issue'), 'any')).toBe('"create" OR "issue"');
  });

  it('makes the last word a prefix when asked and long enough', () => {
    expect(ftsMatch(terms('create iss'), 'all', { prefix: true })).toBe('"create" AND "iss"*');
    expect(ftsMatch(terms('create ab'), 'all', { prefix: true })).toBe('"create" AND "ab"');
  });

  it('finds a camelCase word whole or by its parts', () => {
    expect(ftsMatch(terms('listIssues'), 'all', { prefix: true })).toBe(
      '("listissues"* OR ("list" AND "issues"*))',
    );
  });

  it('limits the expression to columns', () => {
    expect(ftsMatch(terms('create issue'), 'all', { columns: ['id', 'name'] })).toBe(
      '{id name} : ("create" AND "issue")',
    );
  });

  it('turns operators into quoted words', () => {
    expect(ftsMatch(terms('NEAR(x) NOT "y" -z*'), 'any')).toBe('"near" OR "x" OR "not" OR "y" OR "z"');
  });
});

describe('hasPrefix', () => {
  it('says whether the last word is long enough to be a prefix', () => {
    expect(hasPrefix(terms('create iss'))).toBe(true);
    expect(hasPrefix(terms('create ab'))).toBe(false);
    expect(hasPrefix([])).toBe(false);
  });
});
