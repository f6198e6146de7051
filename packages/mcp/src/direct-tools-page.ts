import { inScope, type KeyRules, keyOverride } from '@cyrnel/core';
import type { ToolPolicy } from '@cyrnel/sdk';
import {
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  type Tool,
} from '@modelcontextprotocol/server';
import type { CatalogEntry, DirectCatalog } from './direct-catalog';

/** How a page of direct tools is bounded. */
export interface PageLimits {
  /** Most tools on a page. */
  readonly pageSize: number;
  /** Most JSON characters of a page's tools (a page always holds at least one). */
  readonly maxPageChars: number;
}

/** What a key may do with a tool: its policy for that key, or `block` outside its scope. */
export function policyFor(rules: KeyRules | undefined, entry: CatalogEntry): ToolPolicy {
  if (!rules) return entry.effectivePolicy;
  if (!inScope(rules.scope, entry.serviceId, entry.toolId)) return 'block';
  return keyOverride(rules.policy, entry.serviceId, entry.toolId)?.policy ?? entry.effectivePolicy;
}

const CURSOR_PREFIX = 'after:';

/** The cursor of the page after the tool named `name`. */
const encodeCursor = (name: string) => Buffer.from(`${CURSOR_PREFIX}${name}`).toString('base64url');

/** The name a cursor continues after; a cursor that is none of ours is invalid params (-32602). */
function decodeCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,400}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  if (!text.startsWith(CURSOR_PREFIX) || text.length === CURSOR_PREFIX.length)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Invalid cursor: it is not one tools/list answered',
    );
  return text.slice(CURSOR_PREFIX.length);
}

/** The first index of `sorted` whose name comes after `name`. */
function firstAfter(sorted: readonly CatalogEntry[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as CatalogEntry).name <= name) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The note a tool that asks carries: the client learns a call may wait for a person. */
const ASK_NOTE =
  '\n\nA call of this tool waits for a person to approve it (cyrnel asks them, or answers where they decide).';

/**
 * One page of the tools a key may call (`rules`; none: every callable tool), in name order after
 * `cursor`: tools outside its scope or blocked for it are not listed. A cursor names the last tool
 * of the page before, so a page follows on after a catalog change without repeating or skipping
 * the tools that stayed. Bounded by `limits`; `nextCursor` while tools remain.
 *
 * @example
 * ```ts
 * const page = await listPage(catalog, await keys.rules(keyId), undefined, { pageSize: 100, maxPageChars: 1 << 20 });
 * ```
 */
export async function listPage(
  catalog: DirectCatalog,
  rules: KeyRules | undefined,
  cursor: string | undefined,
  limits: PageLimits,
): Promise<ListToolsResult> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const { sorted } = await catalog.index();
  const tools: Tool[] = [];
  let chars = 0;
  let last: string | undefined;
  let more = false;
  let position = after === undefined ? 0 : firstAfter(sorted, after);
  pages: while (position < sorted.length) {
    // A window read at once: each listing not yet built is a read of the host.
    const window = sorted.slice(position, position + limits.pageSize);
    const visible = window
      .map((entry) => ({ entry, policy: policyFor(rules, entry) }))
      .filter(({ policy }) => policy !== 'block');
    const listings = await Promise.all(visible.map(({ entry }) => catalog.listed(entry)));
    for (const [i, { entry, policy }] of visible.entries()) {
      const listed = listings[i];
      const fits =
        tools.length < limits.pageSize &&
        (tools.length === 0 || chars + (listed?.size ?? 0) <= limits.maxPageChars);
      if (listed && !fits) {
        more = true;
        break pages;
      }
      last = entry.name;
      if (!listed) continue;
      chars += listed.size;
      const meta = { 'cyrnel/policy': policy };
      const { tool } = listed;
      tools.push(
        policy === 'ask'
          ? { ...tool, description: `${tool.description ?? ''}${ASK_NOTE}`, _meta: meta }
          : { ...tool, _meta: meta },
      );
    }
    position += window.length;
  }
  return { tools, ...(more && last !== undefined ? { nextCursor: encodeCursor(last) } : {}) };
}
