import { commentText } from './comment-text';

/**
 * Objects without comments up to this long render on one line (`{ id?: number; name?: string }`);
 * GitHub's 5-tool selection was 26 KB with one member per line.
 */
export const INLINE_WIDTH = 100;
/** Members without comments share lines up to this long (`id: number; name: string; url: string;`). */
export const PACK_WIDTH = 100;

/**
 * A comment line of a first sentence, or nothing. The declarations go into an agent's prompt:
 * comments are first sentences, on tools, the members of their parameters and results, and named
 * declarations themselves only (GitHub's 5-tool selection was 55 KB with every nested member's
 * full description).
 */
export function comment(text: string, pad: string): string {
  const clean = commentText(text, true);
  return clean ? `${pad}/** ${clean} */\n` : '';
}
