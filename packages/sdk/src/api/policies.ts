import type { ToolAnnotation, ToolLabel, ToolPolicy } from '../tool-policy';

/**
 * The policy rules of one service (`GET`/`PUT /services/:serviceId/policy`). Every field is
 * optional; the effective policy of a tool is the most specific of: `tools[toolId]`, the most
 * restrictive `byAnnotation` rule its annotations match, `default`, then the server's default
 * (`--default-policy`, out of the box read-only tools `allow`, every other `ask`).
 *
 * @example
 * ```ts
 * const policy: ServicePolicy = {
 *   default: 'ask',
 *   byAnnotation: { readOnly: 'allow', destructive: 'block' },
 *   tools: { issues_create: 'allow' },
 *   labels: { issues_get: ['untrusted'], secrets_get: ['private'] },
 * };
 * ```
 */
export interface ServicePolicy {
  /** The policy of this service's tools that no other rule of the service decides. */
  default?: ToolPolicy;
  /** Rules by annotation: a tool whose annotation is `true` gets the rule's policy (the strictest match wins). */
  byAnnotation?: Partial<Record<ToolAnnotation, ToolPolicy>>;
  /** Each tool's own setting, by tool id: the most specific rule. */
  tools?: Record<string, ToolPolicy>;
  /** Data-flow labels by tool id, replacing the ones derived from its annotations. */
  labels?: Record<string, ToolLabel[]>;
  /**
   * What the data-flow rule does to an `egress` call of this service in a process that already
   * called a `private` and an `untrusted` tool: `ask` (default) or `block`.
   */
  dataFlow?: 'ask' | 'block';
}

/**
 * How an API key's calls differ from the policies (`POST /keys`): an automation key may be
 * `allow` where people's keys `ask`. The most specific entry wins: `tools['<service>.<tool>']`,
 * then `services[serviceId]`, then `default`; no entry: the tool's effective policy. The
 * data-flow rule applies whatever the key says.
 */
export interface KeyPolicy {
  /** Every tool's policy for this key. */
  default?: ToolPolicy;
  /** By service id. */
  services?: Record<string, ToolPolicy>;
  /** By qualified tool id, `<serviceId>.<toolId>`. */
  tools?: Record<string, ToolPolicy>;
}

/**
 * What an API key may call at all: services (every tool of them) and qualified tools
 * (`<serviceId>.<toolId>`). A call outside the scope is blocked (`tool_blocked`). Null or absent:
 * every tool.
 */
export interface KeyScope {
  /** Service ids. */
  services?: string[];
  /** Qualified tool ids. */
  tools?: string[];
}

/** Which rule decided a call, as the audit records it. */
export type PolicyRule =
  | 'tool'
  | 'service-annotation'
  | 'service-default'
  | 'server-annotation'
  | 'server-default'
  | 'key'
  | 'scope'
  | 'plan'
  | 'remembered'
  | 'data-flow';

/** A call's decision as `GET /processes/:id/calls` records it. */
export interface CallDecision {
  /** The policy the call had when it was made. */
  policy: ToolPolicy;
  /** The rule that gave it (`service-annotation` and `server-annotation` name the annotation in `detail`). */
  rule: PolicyRule;
  /** The annotation or key rule that matched, when `rule` names one. */
  detail?: string;
  /** What happened: allowed by the policy, approved or denied by a person, expired, blocked. */
  outcome: 'allowed' | 'approved' | 'denied' | 'expired' | 'blocked';
  /** The approval it waited for. */
  approvalId?: string;
  /** The key that decided the approval (null: the server's bootstrap key or an open server). */
  decidedBy?: string | null;
  /** The note given with the decision. */
  note?: string;
}
