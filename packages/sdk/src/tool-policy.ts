/**
 * What a tool says about itself, as its adapter derives it from the definition (an HTTP method, an
 * MCP tool's hints). Operators' policies are written in these terms ("read-only tools are allowed").
 * Every flag is optional: absent means unknown, never false.
 *
 * @example
 * ```ts
 * const annotations: ToolAnnotations = { readOnly: true, idempotent: true };
 * ```
 */
export interface ToolAnnotations {
  /** The tool only reads (HTTP GET, HEAD, OPTIONS; MCP `readOnlyHint`). */
  readOnly?: boolean;
  /** The tool may destroy or overwrite data (HTTP DELETE; MCP `destructiveHint`). */
  destructive?: boolean;
  /** Calling it twice with the same parameters does what calling it once does (HTTP PUT, DELETE). */
  idempotent?: boolean;
  /** The tool reaches an open world (the web, anyone's content) rather than a closed system. */
  openWorld?: boolean;
}

/** Every annotation a policy rule may name, in the order the most restrictive match is looked for. */
export const TOOL_ANNOTATIONS = ['destructive', 'readOnly', 'idempotent', 'openWorld'] as const;

/** One of {@link TOOL_ANNOTATIONS}. */
export type ToolAnnotation = (typeof TOOL_ANNOTATIONS)[number];

/**
 * What a call of a tool may do: `allow` it, `ask` a person first (the program waits at the call),
 * or `block` it (the call throws `tool_blocked` and nothing leaves).
 */
export const TOOL_POLICIES = ['allow', 'ask', 'block'] as const;

/** One of {@link TOOL_POLICIES}. */
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

/**
 * Data-flow labels of a tool: `private` reads the operator's private data, `untrusted` returns
 * content anyone could have written (web pages, issues, emails), `egress` sends data out. In a
 * process that has called a `private` and an `untrusted` tool, every later `egress` call is asked
 * (or blocked), whatever its own policy.
 */
export const TOOL_LABELS = ['private', 'untrusted', 'egress'] as const;

/** One of {@link TOOL_LABELS}. */
export type ToolLabel = (typeof TOOL_LABELS)[number];

/** The more restrictive of two policies (`block` over `ask` over `allow`). */
export function stricterPolicy(a: ToolPolicy, b: ToolPolicy): ToolPolicy {
  return TOOL_POLICIES.indexOf(a) >= TOOL_POLICIES.indexOf(b) ? a : b;
}

/**
 * The labels a tool has when its operator set none: `untrusted` for a read-only tool of an open
 * world, `egress` for a tool that is not known to be read-only unless it is known to stay in a
 * closed world. `private` is never guessed: only the operator knows which data is private.
 *
 * @example
 * ```ts
 * defaultLabels({ readOnly: true, openWorld: true }); // ['untrusted']
 * defaultLabels({}); // ['egress']
 * ```
 */
export function defaultLabels(annotations: ToolAnnotations | undefined): ToolLabel[] {
  const a = annotations ?? {};
  if (a.readOnly === true) return a.openWorld === true ? ['untrusted'] : [];
  return a.openWorld === false ? [] : ['egress'];
}
