import type { JSONSchema } from '../json-schema';
import type { ToolAnnotations, ToolLabel, ToolPolicy } from '../tool-policy';
import type { PageQuery } from './lists';

/** A tool as `GET /tools` lists it (no schemas). */
export interface ToolRecord {
  /** Owning service. */
  serviceId: string;
  /** Tool id within the service. */
  id: string;
  /** Human-friendly name. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The tool's own flag. */
  enabled: boolean;
  /** `enabled` and the service enabled and its adapter active. */
  effectivelyEnabled: boolean;
  /** What the tool says about itself (from its definition); `{}` when unknown. */
  annotations: ToolAnnotations;
  /** Its data-flow labels: the service policy's, or those derived from its annotations. */
  labels: ToolLabel[];
  /** The tool's own policy setting in its service's policy, or null. */
  policy: ToolPolicy | null;
  /** The policy its calls have (before any key's policy): own setting, service rules, server default. */
  effectivePolicy: ToolPolicy;
}

/** `GET /tools/:serviceId/:toolId`: the record plus its schemas. */
export interface ToolDetail extends ToolRecord {
  /** JSON Schema of the parameters. */
  inputSchema: JSONSchema;
  /** JSON Schema of the result. */
  outputSchema: JSONSchema;
  /**
   * For a tool whose `outputSchema` says nothing: the shape of the results cyrnel has seen, types
   * only (`type`, `properties`, `required`, `items`, `additionalProperties`, `anyOf`; never a
   * value). It may be incomplete: a field no result had yet is missing. Null when nothing was
   * observed, the tool declares its output, or its service does not observe outputs.
   */
  observedOutputSchema: JSONSchema | null;
}

/**
 * `GET /tools/version`: the catalog's version, which changes with every change of what agents can
 * call (a service installed, enabled, updated or removed, a tool enabled or disabled, an adapter
 * activated). Compare it to know whether to read the catalog again; it says nothing else.
 */
export interface CatalogVersionResponse {
  version: string;
}

/** Filters of `GET /tools`. */
export interface ToolListQuery extends PageQuery {
  /** Only this service's tools (unknown service → 404). */
  serviceId?: string;
  /**
   * A ranked search (the one `cyrnel.discover.tools` uses): effectively enabled tools only, best
   * first, at most `limit`, never cursor-paged (`nextCursor` is null; `hasMore` says whether more
   * matched). Not combinable with `cursor` or `enabled: false` (400).
   */
  query?: string;
  /** Only tools whose own flag is this. */
  enabled?: boolean;
  /** Only tools with this effective policy (`allow`, `ask` or `block`). */
  effectivePolicy?: ToolPolicy;
}
