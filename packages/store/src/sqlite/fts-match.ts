import type { SearchTerm } from '@cyrnel/core';

/** How the words of a query combine. */
export type MatchMode = 'all' | 'any';

// A shorter last word is matched whole: a one- or two-letter prefix reaches most of the index.
const MIN_PREFIX = 3;

/** An FTS5 string: the only form a query word ever reaches FTS5 in, so no operator can. */
function quote(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

function literal(word: string, prefix: boolean): string {
  return prefix && word.length >= MIN_PREFIX ? `${quote(word)}*` : quote(word);
}

function termExpression(term: SearchTerm, prefix: boolean): string {
  if (term.parts.length === 0) return literal(term.word, prefix);
  const last = term.parts.length - 1;
  const parts = term.parts.map((part, i) => literal(part, prefix && i === last));
  // `GitHub` is indexed as `github git hub`, `github` as itself: either form finds it.
  return `(${literal(term.word, prefix)} OR (${parts.join(' AND ')}))`;
}

/** Options of {@link ftsMatch}. */
export interface MatchOptions {
  /** Only in these columns. */
  readonly columns?: readonly string[];
  /** The last term also as a prefix (when at least 3 letters): `repo` finds `repository`. */
  readonly prefix?: boolean;
}

/**
 * An FTS5 MATCH expression for query terms (from `parseSearch`): every term quoted, joined with
 * AND (`all`) or OR (`any`).
 *
 * @example
 * ```ts
 * ftsMatch(parseSearch('create issue').terms, 'all', { prefix: true }); // '"create" AND "issue"*'
 * ```
 */
export function ftsMatch(terms: readonly SearchTerm[], mode: MatchMode, options: MatchOptions = {}): string {
  const last = terms.length - 1;
  const expression = terms
    .map((term, i) => termExpression(term, options.prefix === true && i === last))
    .join(mode === 'all' ? ' AND ' : ' OR ');
  return options.columns ? `{${options.columns.join(' ')}} : (${expression})` : expression;
}

/** Whether a prefix would change the match of these terms (the last one long enough). */
export function hasPrefix(terms: readonly SearchTerm[]): boolean {
  const last = terms[terms.length - 1];
  return last !== undefined && [last.word, ...last.parts].some((word) => word.length >= MIN_PREFIX);
}
