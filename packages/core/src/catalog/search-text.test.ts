import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_CHARS, MAX_SEARCH_WORDS, parseSearch, searchWords, wordCount } from './search-text';

const words = (query: string) => parseSearch(query).terms.map((term) => term.word);

describe('searchWords', () => {
  it('splits snake_case, kebab-case, paths and sentences, lower-cased', () => {
    expect(searchWords('issues_create')).toBe('issues create');
    expect(searchWords('/repos/{owner}/{repo}/issues')).toBe('repos owner repo issues');
    expect(searchWords('get-forecast, for a City.')).toBe('get forecast for a city');
  });

  it('keeps a camelCase word whole and adds its parts', () => {
    expect(searchWords('listIssues')).toBe('listissues list issues');
    expect(searchWords('GitHub HTTPServer getV2User')).toBe(
      'github git hub httpserver http server getv2user get v2 user',
    );
    expect(searchWords('Café')).toBe('café');
  });

  it('gives the first words only when asked for a number, parts included, reading no further', () => {
    expect(searchWords('GitHub listIssues more words', 4)).toBe('github git hub listissues');
    expect(searchWords('GitHub listIssues', 2)).toBe('github git');
    const long = `${'word '.repeat(100)}listIssues`;
    expect(searchWords(long, 64)).toBe(searchWords(long).split(' ', 64).join(' '));
    expect(searchWords('a b', 64)).toBe('a b');
  });
});

describe('wordCount', () => {
  it('counts the words of an id, camelCase parts included', () => {
    expect(wordCount('issues_create')).toBe(2);
    expect(wordCount('listIssues')).toBe(2);
    expect(wordCount('getV2User')).toBe(3);
    expect(wordCount('$')).toBe(0);
  });
});

describe('parseSearch', () => {
  it('names an exact id, plain or qualified by its service', () => {
    expect(parseSearch('issues_create')).toEqual({
      exact: { toolId: 'issues_create' },
      terms: [
        { word: 'issues', parts: [] },
        { word: 'create', parts: [] },
      ],
    });
    expect(parseSearch('  github.issues_create ')).toEqual({
      exact: { serviceId: 'github', toolId: 'issues_create' },
      terms: [
        { word: 'issues', parts: [] },
        { word: 'create', parts: [] },
      ],
    });
    expect(parseSearch('create issue').exact).toBeUndefined();
    expect(parseSearch('a.b.c').exact).toBeUndefined();
  });

  it('keeps camelCase parts of a query word', () => {
    expect(parseSearch('listIssues').terms).toEqual([{ word: 'listissues', parts: ['list', 'issues'] }]);
  });

  it('drops stop words and repeats, unless nothing else is left', () => {
    expect(words('Create an issue for the issue')).toEqual(['create', 'issue']);
    expect(words('the a')).toEqual(['the', 'a']);
  });

  it('lets nothing but letters and digits through, whatever the query holds', () => {
    expect(words('"issues" NEAR(create, 2) OR -label:x* ^y')).toEqual([
      'issues',
      'near',
      'create',
      '2',
      'label',
      'x',
      'y',
    ]);
    for (const hostile of ['"', '*', 'NEAR(', ')', '-', ':', '{id}', "'; drop table tools; --", '\u0000']) {
      for (const term of parseSearch(hostile).terms) {
        expect([term.word, ...term.parts].join('')).toMatch(/^[\p{L}\p{M}\p{N}]+$/u);
      }
    }
    expect(parseSearch('"*:-()').terms).toEqual([]);
  });

  it('reads a bounded part of a long query', () => {
    const many = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    expect(words(many)).toHaveLength(MAX_SEARCH_WORDS);
    expect(words(`${'x'.repeat(MAX_SEARCH_CHARS)}tail`)).toEqual(['x'.repeat(MAX_SEARCH_CHARS)]);
    expect(parseSearch('y'.repeat(10_000_000)).terms[0]?.word).toHaveLength(MAX_SEARCH_CHARS);
  });
});
