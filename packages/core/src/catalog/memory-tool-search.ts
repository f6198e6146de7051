import type { ToolSearchQuery } from './catalog-storage';
import { COLUMNS, type Column, type IndexedTool, indexWord, type MemoryToolIndex } from './memory-tool-index';
import { parseSearch, type SearchTerm } from './search-text';

// bm25 weights of the columns (id, name, keywords, description, service) and its usual constants,
// as `@cyrnel/store` ranks with SQLite's `bm25(tool_search, 3, 2, 1, 0.5, 0.5)`.
const WEIGHTS = [3, 2, 1, 0.5, 0.5];
const K1 = 1.2;
const B = 0.75;
const ID: Column = 0;
const NAME: Column = 1;
// A shorter last word is matched whole: a one- or two-letter prefix reaches most words.
const MIN_PREFIX = 3;

/** A query word as indexed, matched whole or (the last word of a prefix tier) as a prefix. */
interface Phrase {
  readonly word: string;
  readonly prefix: boolean;
}

/** A query term: its word, or all of its camelCase parts (`GitHub`: github, or git and hub). */
interface Term {
  readonly word: Phrase;
  readonly parts: readonly Phrase[];
}

/** A step after the title step: where every (or any) word must be. */
interface Tier {
  readonly mode: 'all' | 'any';
  readonly columns?: readonly Column[];
  readonly prefix?: boolean;
}

/** Every word in the id or name, then anywhere, then with the last word as a prefix, then any word. */
const TIERS: readonly Tier[] = [
  { mode: 'all', columns: [ID, NAME] },
  { mode: 'all' },
  { mode: 'all', prefix: true },
  { mode: 'any', prefix: true },
];

function phrase(word: string, prefix: boolean): Phrase {
  const indexed = indexWord(word);
  return { word: indexed, prefix: prefix && word.length >= MIN_PREFIX && indexed !== '' };
}

/** The terms of a query, the last one's last word as a prefix when `prefix`. */
function compile(terms: readonly SearchTerm[], prefix = false): Term[] {
  return terms.map((term, i) => {
    const last = prefix && i === terms.length - 1;
    return {
      word: phrase(term.word, last),
      parts: term.parts.map((part, j) => phrase(part, last && j === term.parts.length - 1)),
    };
  });
}

/** The tiers that can add something for these terms, widest last. */
function tiersFor(terms: readonly SearchTerm[]): Tier[] {
  const last = terms[terms.length - 1];
  const canPrefix = last !== undefined && [last.word, ...last.parts].some((w) => w.length >= MIN_PREFIX);
  return TIERS.filter(
    (tier) =>
      !(tier.prefix && !canPrefix && tier.mode === 'all') && !(tier.mode === 'any' && terms.length === 1),
  );
}

/** How often a phrase occurs in one column of a tool. */
function hitsIn(tool: IndexedTool, { word, prefix }: Phrase, column: Column): number {
  const words = tool.columns[column] as ReadonlyMap<string, number>;
  if (!prefix) return words.get(word) ?? 0;
  let hits = 0;
  for (const [indexed, count] of words) if (indexed.startsWith(word)) hits += count;
  return hits;
}

/** Whether a tool holds a phrase (in the columns a tier looks at). */
type Presence = (tool: IndexedTool, phrase: Phrase) => boolean;

function holds(tool: IndexedTool, term: Term, present: Presence): boolean {
  return present(tool, term.word) || (term.parts.length > 0 && term.parts.every((p) => present(tool, p)));
}

function holdsAll(tool: IndexedTool, terms: readonly Term[], present: Presence): boolean {
  return terms.every((term) => holds(tool, term, present));
}

const inColumns =
  (columns: readonly Column[]): Presence =>
  (tool, p) =>
    columns.some((column) => hitsIn(tool, p, column) > 0);

const EVERY_COLUMN: readonly Column[] = COLUMNS.map((_, column) => column);

/** One search's look-ups: the tools holding each phrase, read from the index once. */
interface Lookup {
  holders(phrase: Phrase): ReadonlySet<IndexedTool>;
  /** Whether a tool holds a phrase anywhere. */
  readonly anywhere: Presence;
}

function lookup(index: MemoryToolIndex): Lookup {
  const memo = new Map<string, ReadonlySet<IndexedTool>>();
  const holders = (p: Phrase) => {
    const key = `${p.prefix ? '*' : '='}${p.word}`;
    let found = memo.get(key);
    if (!found) {
      found = index.holding(p.word, p.prefix);
      memo.set(key, found);
    }
    return found;
  };
  return { holders, anywhere: (tool, p) => holders(p).has(tool) };
}

function inTier(tool: IndexedTool, terms: readonly Term[], tier: Tier, look: Lookup): boolean {
  const present = tier.columns ? inColumns(tier.columns) : look.anywhere;
  return tier.mode === 'all'
    ? holdsAll(tool, terms, present)
    : terms.some((term) => holds(tool, term, present));
}

/** The tools that may hold a term (its word, or its first part): a superset, checked after. */
function mayHold(look: Lookup, term: Term): ReadonlySet<IndexedTool> {
  const [part] = term.parts;
  if (!part) return look.holders(term.word);
  return new Set([...look.holders(term.word), ...look.holders(part)]);
}

/** The tools that may be in a tier: of the rarest term when every term must be there, else of any. */
function candidates(look: Lookup, terms: readonly Term[], mode: Tier['mode']): ReadonlySet<IndexedTool> {
  const sets = terms.map((term) => mayHold(look, term));
  if (mode === 'all') return sets.reduce((a, b) => (b.size < a.size ? b : a));
  return new Set(sets.flatMap((set) => [...set]));
}

const byName = (a: IndexedTool, b: IndexedTool): number =>
  a.serviceId < b.serviceId
    ? -1
    : a.serviceId > b.serviceId
      ? 1
      : a.toolId < b.toolId
        ? -1
        : a.toolId > b.toolId
          ? 1
          : 0;

/**
 * bm25 of each tool for the phrases of `terms`, as SQLite FTS5 computes it: the phrases' column
 * weights summed per hit, the whole row's length against the average. A camelCase term's parts
 * count only where all of them are there (FTS5 counts a phrase only where its branch matched).
 */
function scorer(index: MemoryToolIndex, look: Lookup, terms: readonly Term[]): (tool: IndexedTool) => number {
  const { tools, words } = index.stats();
  const average = words / Math.max(tools, 1);
  const weigh = (p: Phrase) => {
    const hits = look.holders(p).size;
    const idf = Math.log((tools - hits + 0.5) / (hits + 0.5));
    return { phrase: p, idf: idf > 0 ? idf : 1e-6 };
  };
  const weighed = terms.map((term) => ({ word: weigh(term.word), parts: term.parts.map(weigh) }));
  return (tool) => {
    const norm = K1 * (1 - B + (B * tool.length) / average);
    let score = 0;
    const add = ({ phrase: p, idf }: { phrase: Phrase; idf: number }) => {
      let frequency = 0;
      for (const column of EVERY_COLUMN) frequency += (WEIGHTS[column] as number) * hitsIn(tool, p, column);
      score += (idf * frequency * (K1 + 1)) / (frequency + norm);
    };
    for (const term of weighed) {
      add(term.word);
      if (term.parts.length > 0 && term.parts.every(({ phrase: p }) => look.anywhere(tool, p)))
        term.parts.forEach(add);
    }
    return score;
  };
}

/** Tools whose id, or whose name, holds every word: the shortest such field first. */
function titleStep(look: Lookup, terms: readonly Term[], callable: (tool: IndexedTool) => boolean) {
  const NO_LENGTH = Number.MAX_SAFE_INTEGER;
  const inId = inColumns([ID]);
  const inName = inColumns([NAME]);
  const keyed = [];
  for (const tool of candidates(look, terms, 'all')) {
    if (!callable(tool)) continue;
    const idLength = holdsAll(tool, terms, inId) ? tool.idWords : NO_LENGTH;
    const nameLength = holdsAll(tool, terms, inName) ? tool.nameWords : NO_LENGTH;
    if (idLength === NO_LENGTH && nameLength === NO_LENGTH) continue;
    keyed.push({ tool, length: Math.min(idLength, nameLength) });
  }
  return keyed
    .sort(
      (a, b) =>
        a.length - b.length ||
        a.tool.idWords + a.tool.nameWords - (b.tool.idWords + b.tool.nameWords) ||
        byName(a.tool, b.tool),
    )
    .map(({ tool }) => tool);
}

/**
 * The tiers' tools not in `found`, at least `wanted` of them when there are: each in the first
 * tier that holds it, by bm25 over the widest tier's words. A tier is scored only when the tiers
 * before it answered too few.
 */
function tierSteps(
  index: MemoryToolIndex,
  look: Lookup,
  terms: readonly SearchTerm[],
  callable: (tool: IndexedTool) => boolean,
  found: ReadonlySet<IndexedTool>,
  wanted: number,
): IndexedTool[] {
  const tiers = tiersFor(terms).map((tier) => ({ tier, terms: compile(terms, tier.prefix) }));
  const widest = tiers[tiers.length - 1];
  if (widest === undefined) return [];
  const groups: IndexedTool[][] = tiers.map(() => []);
  for (const tool of candidates(look, widest.terms, widest.tier.mode)) {
    if (found.has(tool) || !callable(tool) || !inTier(tool, widest.terms, widest.tier, look)) continue;
    const tier = tiers.findIndex((step) => inTier(tool, step.terms, step.tier, look));
    groups[tier]?.push(tool);
  }
  const score = scorer(index, look, widest.terms);
  const answered: IndexedTool[] = [];
  for (const group of groups) {
    if (answered.length >= wanted) break;
    const scored = group.map((tool) => ({ tool, score: score(tool) }));
    scored.sort((a, b) => b.score - a.score || byName(a.tool, b.tool));
    for (const { tool } of scored) answered.push(tool);
  }
  return answered;
}

/**
 * `CatalogStorage.searchTools` over a {@link MemoryToolIndex}, for a query with text: the steps of
 * `@cyrnel/store`'s SQLite search (the exact id, the title step, the tiers by bm25), without its
 * caps on how many matches are ranked. `callable` says which tools may be answered.
 */
export function searchMemoryTools(
  index: MemoryToolIndex,
  query: ToolSearchQuery,
  callable: (tool: IndexedTool) => boolean,
): IndexedTool[] {
  const limit = Math.max(0, Math.floor(query.limit));
  const { exact, terms } = parseSearch(query.text);
  // A qualified id (`github.issues_create`) keeps the words to its service.
  const scoped =
    exact?.serviceId === undefined
      ? callable
      : (tool: IndexedTool) => tool.serviceId === exact.serviceId && callable(tool);
  const found = new Set<IndexedTool>();
  const add = (tools: Iterable<IndexedTool>) => {
    for (const tool of tools) {
      if (found.size >= limit) return;
      found.add(tool);
    }
  };
  if (exact) add(index.withId(exact.toolId).filter(scoped).sort(byName));
  if (terms.length > 0 && found.size < limit) {
    const look = lookup(index);
    add(titleStep(look, compile(terms), scoped));
    if (found.size < limit) add(tierSteps(index, look, terms, scoped, found, limit - found.size));
  }
  return [...found];
}
