/**
 * A description as one comment line. `firstSentence` (declarations in a prompt) also keeps only
 * the first sentence and the text of Markdown links (`[status](https://…)` → `status`).
 */
export function commentText(text: string, firstSentence = false): string {
  const clean = text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim();
  return firstSentence ? leadingSentence(clean.replace(/\[([^\]]*)\]\([^)\s]*\)/g, '$1')) : clean;
}

/** `text` cut at a word before `width` characters, with `…`. */
export function cut(text: string, width: number | undefined): string {
  if (width === undefined || text.length <= width) return text;
  const end = text.lastIndexOf(' ', width - 1);
  return `${text.slice(0, end > width / 2 ? end : width - 1).replace(/[\s,;:.(]+$/, '')}…`;
}

/** The first sentence of a one-line text: up to a `.`, `!` or `?` followed by a space and a capital or a digit. */
export function leadingSentence(text: string): string {
  const end = /[.!?](?=\s+[A-Z0-9_*`[(])/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}
