import type { ToolRow } from './catalog-storage';

/** A tool row with the lower-cased fields ranking compares, computed once per catalog revision. */
export interface IndexedTool<T extends ToolRow = ToolRow> {
  readonly row: T;
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly serviceId: string;
  readonly qualified: string;
}

/** Lower-case the fields of every row once, so a query costs comparisons only. */
export function indexTools<T extends ToolRow>(rows: readonly T[]): IndexedTool<T>[] {
  return rows.map((row) => {
    const id = row.id.toLowerCase();
    const serviceId = row.serviceId.toLowerCase();
    return {
      row,
      id,
      name: row.name.toLowerCase(),
      description: row.description.toLowerCase(),
      serviceId,
      qualified: `${serviceId}.${id}`,
    };
  });
}

/** Relevance of one tool to a lower-cased query; 0 means no match. */
function score(tool: IndexedTool, query: string, words: readonly string[]): number {
  const { id, name, description } = tool;
  if (id === query || tool.qualified === query) return 1000;
  let whole = 0;
  if (id.includes(query)) whole += 300;
  if (name.includes(query)) whole += 200;
  if (description.includes(query)) whole += 100;
  let total = whole;
  // Every word must appear somewhere; each hit in the id or name weighs more than one in the description.
  let allWords = true;
  for (const word of words) {
    const hit =
      (id.includes(word) ? 30 : 0) + (name.includes(word) ? 20 : 0) + (description.includes(word) ? 10 : 0);
    if (hit === 0 && !tool.serviceId.includes(word)) allWords = false;
    total += hit;
  }
  if (whole === 0 && !allWords) return 0;
  return total || 1;
}

/**
 * Rank tools for discovery: an exact id match first, then matches in the id, the name and the
 * description; ties keep the stable (serviceId, toolId) order. An empty query keeps every tool.
 * At most `limit` tools are answered.
 */
export function rankTools<T extends ToolRow>(
  tools: readonly IndexedTool<T>[],
  query: string,
  limit = Number.POSITIVE_INFINITY,
): T[] {
  const text = query.trim().toLowerCase();
  if (text === '') return tools.slice(0, limit).map((tool) => tool.row);
  const words = text.split(/\s+/).filter(Boolean);
  const hits: { row: T; index: number; score: number }[] = [];
  tools.forEach((tool, index) => {
    const value = score(tool, text, words);
    if (value > 0) hits.push({ row: tool.row, index, score: value });
  });
  return hits
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((hit) => hit.row);
}
