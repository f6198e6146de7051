import { stemmer } from 'stemmer';
import type { NewTool } from './catalog-storage';
import { INDEXED_DESCRIPTION_WORDS, searchWords, wordCount } from './search-text';

/** The indexed fields of a tool, in the order their weights are given. */
export const COLUMNS = ['id', 'name', 'keywords', 'description', 'service'] as const;

/** Index of a column in {@link COLUMNS}. */
export type Column = number;

/** A tool as the index holds it: its words per column (stemmed), with how often each occurs. */
export interface IndexedTool {
  readonly serviceId: string;
  readonly toolId: string;
  readonly columns: readonly ReadonlyMap<string, number>[];
  /** Words in all columns together (bm25's document length). */
  readonly length: number;
  /** Words of the id and of the name (`wordCount`): the title step orders by them. */
  readonly idWords: number;
  readonly nameWords: number;
}

/**
 * A word as indexed and as searched: lower-cased (already, by `searchWords`), diacritics removed
 * and Porter-stemmed, as SQLite's `porter unicode61 remove_diacritics 2` tokenizer does, so
 * `issues` finds `issue` here as there (the `stemmer` package and SQLite's stemmer agree on
 * every word of GitHub's REST description).
 */
export function indexWord(word: string): string {
  return stemmer(word.normalize('NFD').replace(/\p{M}/gu, ''));
}

function columnOf(text: string, limit?: number): Map<string, number> {
  const counts = new Map<string, number>();
  const words = searchWords(text, limit).split(' ');
  for (const word of words) {
    if (word === '') continue;
    const indexed = indexWord(word);
    if (indexed !== '') counts.set(indexed, (counts.get(indexed) ?? 0) + 1);
  }
  return counts;
}

function sizeOf(column: ReadonlyMap<string, number>): number {
  let size = 0;
  for (const count of column.values()) size += count;
  return size;
}

/**
 * The words of every tool, each word with the tools holding it (an inverted index), so a search
 * reads the tools its words name instead of every tool.
 */
export interface MemoryToolIndex {
  add(serviceId: string, serviceName: string, tools: readonly NewTool[]): void;
  remove(serviceId: string): void;
  /** Tools holding `word`, or (`prefix`) a word starting with it. */
  holding(word: string, prefix: boolean): ReadonlySet<IndexedTool>;
  /** Tools whose id is `toolId`, compared case-insensitively. */
  withId(toolId: string): readonly IndexedTool[];
  /** How many tools are indexed, and their words altogether (bm25's corpus statistics). */
  stats(): { readonly tools: number; readonly words: number };
}

/** Create an empty index. */
export function createMemoryToolIndex(): MemoryToolIndex {
  const byService = new Map<string, IndexedTool[]>();
  const postings = new Map<string, Set<IndexedTool>>();
  const byLowerId = new Map<string, Set<IndexedTool>>();
  let tools = 0;
  let words = 0;
  const put = <K, V>(map: Map<K, Set<V>>, key: K, value: V) => {
    const set = map.get(key) ?? new Set<V>();
    set.add(value);
    map.set(key, set);
  };
  const take = <K, V>(map: Map<K, Set<V>>, key: K, value: V) => {
    const set = map.get(key);
    set?.delete(value);
    if (set?.size === 0) map.delete(key);
  };
  return {
    add(serviceId, serviceName, added) {
      const service = columnOf(`${serviceId} ${serviceName}`);
      const indexed = added.map((tool): IndexedTool => {
        const columns = [
          columnOf(tool.id),
          columnOf(tool.name),
          columnOf((tool.keywords ?? []).join(' ')),
          columnOf(tool.description, INDEXED_DESCRIPTION_WORDS),
          service,
        ];
        return {
          serviceId,
          toolId: tool.id,
          columns,
          length: columns.reduce((sum, column) => sum + sizeOf(column), 0),
          idWords: wordCount(tool.id),
          nameWords: wordCount(tool.name),
        };
      });
      for (const tool of indexed) {
        for (const column of tool.columns) for (const word of column.keys()) put(postings, word, tool);
        put(byLowerId, tool.toolId.toLowerCase(), tool);
        tools++;
        words += tool.length;
      }
      byService.set(serviceId, [...(byService.get(serviceId) ?? []), ...indexed]);
    },
    remove(serviceId) {
      for (const tool of byService.get(serviceId) ?? []) {
        for (const column of tool.columns) for (const word of column.keys()) take(postings, word, tool);
        take(byLowerId, tool.toolId.toLowerCase(), tool);
        tools--;
        words -= tool.length;
      }
      byService.delete(serviceId);
    },
    holding(word, prefix) {
      if (!prefix) return postings.get(word) ?? new Set();
      const found = new Set<IndexedTool>();
      for (const [indexed, holders] of postings) {
        if (indexed.startsWith(word)) for (const tool of holders) found.add(tool);
      }
      return found;
    },
    withId: (toolId) => [...(byLowerId.get(toolId.toLowerCase()) ?? [])],
    stats: () => ({ tools, words }),
  };
}
