/** At most this many characters of a search query are read; the rest is ignored. */
export const MAX_SEARCH_CHARS = 500;
/** At most this many words of a search query are searched; the rest are ignored. */
export const MAX_SEARCH_WORDS = 32;

// Words so common in tool texts that requiring them would only lose matches ("create an issue").
const STOP_WORDS = new Set(
  'a an and are as at be by do does for from how i in is it its me my of on or the this that to with'.split(
    ' ',
  ),
);
const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;
// Inside a token: lower (or digit) to upper, and the last capital of an acronym before a word.
const CAMEL = /([\p{Ll}\p{N}])(?=\p{Lu})|(\p{Lu})(?=\p{Lu}\p{Ll})/gu;
const IDENTIFIER = '[A-Za-z_$][A-Za-z0-9_$]*';
const EXACT = new RegExp(`^(?:(${IDENTIFIER})\\.)?(${IDENTIFIER})$`);

/** One word of a query: lower-cased, with its camelCase parts when it has any (`GitHub` → git, hub). */
export interface SearchTerm {
  readonly word: string;
  readonly parts: readonly string[];
}

/** A search query made safe to use: an id it may name exactly, and its words. */
export interface ParsedSearch {
  /**
   * Set when the whole query is an identifier (`issues_create`) or a qualified one
   * (`github.issues_create`: then the words are the tool id's, searched in that service only).
   */
  readonly exact?: { readonly serviceId?: string; readonly toolId: string };
  /** Distinct words, stop words dropped (unless nothing else is left), at most {@link MAX_SEARCH_WORDS}. */
  readonly terms: readonly SearchTerm[];
}

/**
 * Only a description's first words are indexed: they say what the tool does, and what follows
 * (scopes, notes, pagination) would match nearly every query and, being long, would weigh the
 * tool down in bm25 (which divides by the whole row's length, whatever the column weights). Every
 * index (SQLite, PostgreSQL, core's in-memory one) takes this many, so they rank alike.
 */
export const INDEXED_DESCRIPTION_WORDS = 64;

/**
 * The words of `token` (`lower` is it lower-cased): its camelCase parts, or the token alone. Only
 * a token with a capital can have parts, so the others (most words of a description) skip the split.
 */
function partsOf(token: string, lower: string): string[] {
  return lower === token ? [lower] : token.replace(CAMEL, '$1$2 ').toLowerCase().split(' ');
}

/**
 * How many words an id or name has (`issues_create` 2, `listIssues` 2, `getV2User` 3): among
 * tools whose id (or name) holds every query word, search ranks the shorter id (or name) first.
 */
export function wordCount(text: string): number {
  let count = 0;
  for (const [token] of text.matchAll(TOKEN)) count += partsOf(token, token.toLowerCase()).length;
  return count;
}

/**
 * The words a stored text is indexed under: every token lower-cased, and a camelCase token's
 * parts too (`listIssues` → `listissues list issues`), so a query for either finds it; the first
 * `limit` of them when given. Letters (with their marks) and digits only: `_`, `-`, `.`, `/` and
 * spaces all separate words.
 *
 * @example
 * ```ts
 * searchWords('issues_create'); // 'issues create'
 * searchWords('GitHub listIssues'); // 'github git hub listissues list issues'
 * searchWords('GitHub listIssues', 4); // 'github git hub listissues'
 * ```
 */
export function searchWords(text: string, limit = Number.POSITIVE_INFINITY): string {
  const words: string[] = [];
  for (const [token] of text.matchAll(TOKEN)) {
    const lower = token.toLowerCase();
    words.push(lower);
    const parts = partsOf(token, lower);
    if (parts.length > 1) words.push(...parts);
    // The first `limit` words only: a long description is not read to its end.
    if (words.length >= limit) break;
  }
  return (words.length > limit ? words.slice(0, limit) : words).join(' ');
}

/**
 * Read a query (hostile: it may come from sandbox code) into an exact id and plain words. Only
 * letters, marks and digits survive into words, so no query syntax of any search engine can pass.
 *
 * @example
 * ```ts
 * parseSearch('github.issues_create'); // exact { serviceId: 'github', toolId: 'issues_create' }, words issues, create
 * parseSearch('Create an issue'); // terms create, issue
 * ```
 */
export function parseSearch(query: string): ParsedSearch {
  const text = query.slice(0, MAX_SEARCH_CHARS).trim();
  const match = EXACT.exec(text);
  const exact = match
    ? { ...(match[1] === undefined ? {} : { serviceId: match[1] }), toolId: match[2] as string }
    : undefined;
  const seen = new Set<string>();
  const terms: SearchTerm[] = [];
  for (const [token] of (exact?.toolId ?? text).matchAll(TOKEN)) {
    const word = token.toLowerCase();
    if (seen.has(word)) continue;
    seen.add(word);
    const parts = partsOf(token, word);
    terms.push({ word, parts: parts.length > 1 ? parts : [] });
  }
  const kept = terms.filter((term) => !STOP_WORDS.has(term.word));
  return {
    ...(exact ? { exact } : {}),
    terms: (kept.length > 0 ? kept : terms).slice(0, MAX_SEARCH_WORDS),
  };
}
