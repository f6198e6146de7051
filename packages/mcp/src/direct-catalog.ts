import type { ToolsApi } from '@cyrnel/core';
import type { ToolPolicy } from '@cyrnel/sdk';
import type { ToolRecord } from '@cyrnel/sdk/api';
import { leftOutMessage, nameTools, type QualifiedTool } from './direct-tool-names';
import { type BuiltTool, buildTool, type DirectToolLimits } from './direct-tool-schemas';

/** A named tool of the catalog: what listing and calling need before its schemas. */
export interface CatalogEntry extends QualifiedTool {
  /** Its direct tool name, `<service>__<tool>`. */
  readonly name: string;
  /** Its policy before any key's (the key's own entry may replace it). */
  readonly effectivePolicy: ToolPolicy;
}

/** The named tools of one catalog version. */
export interface CatalogIndex {
  readonly version: string;
  /** Sorted by name: pages follow this order. */
  readonly sorted: readonly CatalogEntry[];
  readonly byName: ReadonlyMap<string, CatalogEntry>;
}

/** A tool that has its MCP listing. */
export type ListedTool = Extract<BuiltTool, { tool: unknown }>;

/** The callable tools of a host as direct tools, kept per catalog version. */
export interface DirectCatalog {
  /** The named tools of the catalog as it is now. */
  index(): Promise<CatalogIndex>;
  /** The MCP listing of a named tool; undefined when its schemas leave it out or it is gone. */
  listed(entry: CatalogEntry): Promise<ListedTool | undefined>;
}

/** Options of {@link createDirectCatalog}. */
export interface DirectCatalogOptions {
  /** The host's tools: their list (names, policies) and each one's schemas. */
  readonly tools: Pick<ToolsApi, 'list' | 'get'>;
  /** The host's catalog version: a new one builds the index again. */
  readonly version: () => string;
  readonly limits?: Partial<DirectToolLimits>;
  /** A tool left out, said once (a name breaking MCP's rules or shared, a schema it cannot carry). */
  readonly onLeftOut?: (message: string) => void;
  /** Most listings kept for one catalog version. Default 2,000. */
  readonly maxCachedTools?: number;
}

/** Messages already said are said once per catalog: at most this many remembered. */
const MAX_SAID = 1_000;

/** Every effectively enabled tool of the host, page after page. */
async function callableTools(tools: DirectCatalogOptions['tools']): Promise<ToolRecord[]> {
  const found: ToolRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await tools.list({ enabled: true, limit: 100, ...(cursor ? { cursor } : {}) });
    found.push(...page.items.filter((tool) => tool.effectivelyEnabled));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return found;
}

/**
 * The host's callable tools named as direct tools, built once per catalog version and shared by
 * every caller (a caller's key then decides which it sees): the index (names, policies) from the
 * tools list, each listing (schemas) on first use and kept, at most `maxCachedTools` of them.
 * Tools left out are said through `onLeftOut`, each once.
 *
 * @example
 * ```ts
 * const catalog = createDirectCatalog({ tools: host.tools, version: () => host.catalogVersion() });
 * const { sorted } = await catalog.index();
 * const first = await catalog.listed(sorted[0]);
 * ```
 */
export function createDirectCatalog(options: DirectCatalogOptions): DirectCatalog {
  const limits: DirectToolLimits = {
    maxSchemaChars: options.limits?.maxSchemaChars ?? 64 * 1024,
    maxDescriptionChars: options.limits?.maxDescriptionChars ?? 8 * 1024,
  };
  const maxCached = options.maxCachedTools ?? 2_000;
  const said = new Set<string>();
  const say = (message: string) => {
    if (said.has(message)) return;
    if (said.size >= MAX_SAID) said.clear();
    said.add(message);
    options.onLeftOut?.(message);
  };
  let current: { version: string; index: Promise<CatalogIndex> } | undefined;
  let built = new Map<string, Promise<ListedTool | undefined>>();

  const buildIndex = async (version: string): Promise<CatalogIndex> => {
    const records = await callableTools(options.tools);
    const entries = records.map((record) => ({
      serviceId: record.serviceId,
      toolId: record.id,
      effectivePolicy: record.effectivePolicy,
    }));
    const { named, leftOut } = nameTools(entries);
    for (const left of leftOut) say(leftOutMessage(left));
    const sorted = [...named].map(([name, entry]) => ({ ...entry, name }));
    sorted.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { version, sorted, byName: new Map(sorted.map((entry) => [entry.name, entry])) };
  };

  const build = async (entry: CatalogEntry): Promise<ListedTool | undefined> => {
    let detail: Awaited<ReturnType<ToolsApi['get']>>;
    try {
      detail = await options.tools.get(entry.serviceId, entry.toolId);
    } catch {
      // Gone or disabled since the index was read: the next version's index leaves it out.
      return undefined;
    }
    const made = buildTool(entry.name, detail, limits);
    if ('tool' in made) return made;
    say(
      made.leftOut === 'input-schema-type'
        ? `${entry.serviceId}.${entry.toolId} is not offered as a direct tool: its input schema is not an object, which MCP requires`
        : `${entry.serviceId}.${entry.toolId} is not offered as a direct tool: its input schema is larger than ${limits.maxSchemaChars} characters`,
    );
    return undefined;
  };

  return {
    index() {
      const version = options.version();
      if (current?.version === version) return current.index;
      const index = buildIndex(version);
      current = { version, index };
      built = new Map();
      // A failed read is not kept: the next request reads again.
      index.catch(() => {
        if (current?.index === index) current = undefined;
      });
      return index;
    },
    async listed(entry) {
      const known = built.get(entry.name);
      if (known) return known;
      const made = build(entry);
      built.set(entry.name, made);
      if (built.size > maxCached) built.delete(built.keys().next().value as string);
      return made;
    },
  };
}
