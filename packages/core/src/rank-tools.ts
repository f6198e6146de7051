import type { ToolRow } from './catalog-storage';

/** Relevance of one tool to a lower-cased query; 0 means no match. */
function score(tool: ToolRow, query: string, words: readonly string[]): number {
  const id = tool.id.toLowerCase();
  const name = tool.name.toLowerCase();
  const description = tool.description.toLowerCase();
  const qualified = `${tool.serviceId.toLowerCase()}.${id}`;
  if (id === query || qualified === query) return 1000;
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
    if (hit === 0 && !tool.serviceId.toLowerCase().includes(word)) allWords = false;
    total += hit;
  }
  if (whole === 0 && !allWords) return 0;
  return total || 1;
}

/**
 * Rank tools for discovery: an exact id match first, then matches in the id, the name and the
 * description; ties keep the stable (serviceId, toolId) order. An empty query keeps every tool.
 */
export function rankTools<T extends ToolRow>(tools: readonly T[], query: string): T[] {
  const text = query.trim().toLowerCase();
  if (text === '') return [...tools];
  const words = text.split(/\s+/).filter(Boolean);
  return tools
    .map((tool, index) => ({ tool, index, score: score(tool, text, words) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.tool);
}
