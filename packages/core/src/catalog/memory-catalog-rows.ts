import { type JSONSchema, TOOL_ANNOTATIONS, type ToolAnnotations } from '@cyrnel/sdk';
import type {
  NewTool,
  ServiceDefinitionFields,
  ServiceRow,
  SettingsOwner,
  ToolDetailRow,
  ToolRow,
} from './catalog-storage';

/** A service as kept: its row without the counts, its text, shared schemas and tools by id. */
export interface MemoryService {
  row: Omit<ServiceRow, 'toolCount' | 'enabledToolCount'>;
  definition: string;
  schemas: Record<string, JSONSchema> | undefined;
  /** In id order, as every read answers them. */
  tools: MemoryTool[];
  byId: Map<string, MemoryTool>;
}

/** A tool as kept (its keywords live in the search index only). */
export interface MemoryTool extends Omit<NewTool, 'keywords'> {
  enabled: boolean;
  /** The learned result shape as JSON text (compared as text, as a store's column is). */
  observedOutput?: string;
}

/**
 * Annotations as stored: only the four known flags, only booleans. Every `CatalogStorage` keeps a
 * tool's annotations through this, so the stores agree on what reads back.
 *
 * @example
 * ```ts
 * storedAnnotations({ readOnly: true, other: 1 } as ToolAnnotations); // { readOnly: true }
 * ```
 */
export function storedAnnotations(annotations: NewTool['annotations']): ToolAnnotations {
  const kept: ToolAnnotations = {};
  for (const name of TOOL_ANNOTATIONS) {
    const value = annotations?.[name];
    if (typeof value === 'boolean') kept[name] = value;
  }
  return kept;
}

/** A deep copy: callers own what they give and get, so nothing kept is shared with them. */
export const copy = <T>(value: T): T => structuredClone(value);
/** The key of an owner's config and secrets. */
export const ownerKey = (owner: SettingsOwner) => `${owner.kind}:${owner.id}`;
/** Code-unit order, as the stores' binary collation orders ids. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A definition's tools as kept: copies in id order, and by id. */
export function toolsOf(tools: readonly NewTool[]): { tools: MemoryTool[]; byId: Map<string, MemoryTool> } {
  const kept = tools
    .map(({ keywords: _keywords, ...tool }) =>
      copy({ ...tool, annotations: storedAnnotations(tool.annotations) }),
    )
    .sort((a, b) => compare(a.id, b.id));
  const byId = new Map(kept.map((tool) => [tool.id, tool]));
  // A store refuses this with its primary key; core never stores such a definition.
  if (byId.size !== kept.length) throw new Error('duplicate tool id in one service');
  return { tools: kept, byId };
}

/** The row fields a definition sets. */
export function definitionRow(fields: ServiceDefinitionFields) {
  return {
    name: fields.name,
    description: fields.description,
    hash: fields.hash,
    source: fields.source,
    configSchema: copy(fields.configSchema),
    secretsSchema: copy(fields.secretsSchema),
    adapterDomain: copy(fields.adapterDomain),
    adapterVersion: fields.adapterVersion ?? null,
    registry: fields.registry ? copy(fields.registry) : null,
  };
}

/** A service as the port answers it, with its tool counts. */
export function serviceRow(service: MemoryService): ServiceRow {
  return {
    ...copy(service.row),
    toolCount: service.tools.length,
    enabledToolCount: service.tools.filter((tool) => tool.enabled).length,
  };
}

/** A tool as the port lists it. */
export function toolRow(service: MemoryService, tool: MemoryTool): ToolRow {
  return {
    serviceId: service.row.id,
    id: tool.id,
    name: tool.name,
    description: tool.description,
    enabled: tool.enabled,
    serviceEnabled: service.row.enabled,
    adapter: service.row.adapter,
    annotations: { ...tool.annotations },
  };
}

/** A tool with its schemas and adapter data, copied. */
export function detailRow(service: MemoryService, tool: MemoryTool): ToolDetailRow {
  return {
    ...toolRow(service, tool),
    serviceHash: service.row.hash,
    inputSchema: copy(tool.inputSchema),
    outputSchema: copy(tool.outputSchema),
    adapterDomain: copy(tool.adapterDomain),
    observedOutput:
      service.row.observeOutputs && tool.observedOutput !== undefined
        ? JSON.parse(tool.observedOutput)
        : null,
  };
}
