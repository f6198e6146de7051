import type { JSONSchema, ServiceState, ToolState } from '@cyrnel/sdk';
import type { OutboundPolicyData } from '../outbound/outbound-policy';

/**
 * What the main thread hands an egress gateway worker for one tool it calls: everything the
 * host's own instance of the adapter got, for that service and tool only (never a sandbox process).
 */
export interface PreparedCall {
  /** The catalog revision it was read at; a runtime that saw a later change drops it. */
  readonly revision: string;
  readonly adapter: {
    readonly moduleUrl: string;
    readonly exportName: string;
    /** The adapter module's config and secrets, as its `setup` got them on the host. */
    readonly config: Record<string, unknown>;
    readonly secrets: Record<string, unknown>;
    /** The outbound policy as data; null when the host checks nothing. */
    readonly outbound: OutboundPolicyData | null;
    /** Deadline of one call. */
    readonly invokeMs: number;
  };
  /** The host's snapshot of the service without its tools (the runtime adds those it calls). */
  readonly service: Omit<ServiceState, 'tools'>;
  readonly tool: {
    readonly id: string;
    readonly state: ToolState;
    /** Self-contained (the shared schemas it reaches are its `$defs`), as the gate checks it. */
    readonly inputSchema: JSONSchema;
  };
}
