import type { JSONSchema } from '../json-schema';
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
}

/** `GET /tools/:serviceId/:toolId`: the record plus its schemas. */
export interface ToolDetail extends ToolRecord {
  /** JSON Schema of the parameters. */
  inputSchema: JSONSchema;
  /** JSON Schema of the result. */
  outputSchema: JSONSchema;
}

/** Filters of `GET /tools`. */
export interface ToolListQuery extends PageQuery {
  /** Only this service's tools (unknown service → 404). */
  serviceId?: string;
  /** Case-insensitive text in name and description. */
  query?: string;
  /** Only tools whose own flag is this. */
  enabled?: boolean;
}
