/** Bounds of `ToolDefinition.keywords` the host accepts. */
const MAX_KEYWORDS = 100;
const MAX_KEYWORD_CHARS = 200;

/**
 * What tool search finds an operation by besides its id, name and description: its method, the
 * segments of its path (template braces dropped, so a path-shaped query matches) and its tags,
 * each once.
 *
 * @example
 * ```ts
 * operationKeywords('post', '/repos/{owner}/{repo}/issues', ['issues']);
 * // ['post', 'repos', 'owner', 'repo', 'issues']
 * ```
 */
export function operationKeywords(method: string, path: string, tags: unknown): string[] {
  const segments = path.split(/[/?&=]/).map((segment) => segment.replace(/[{}]/g, ''));
  const named = Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
  const words = [method, ...segments, ...named]
    .map((word) => word.trim().slice(0, MAX_KEYWORD_CHARS))
    .filter(Boolean);
  return [...new Set(words)].slice(0, MAX_KEYWORDS);
}
