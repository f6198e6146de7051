/**
 * What an expression holds on the way from a global to a tool, as far as the text tells:
 * `globalThis`, `cyrnel`, `cyrnel.services`, one service, its `tools`, or `cyrnel.invoke`.
 */
export type ToolPath =
  | { readonly kind: 'global' }
  | { readonly kind: 'cyrnel' }
  | { readonly kind: 'services' }
  | { readonly kind: 'service'; readonly serviceId: string }
  | { readonly kind: 'tools'; readonly serviceId: string }
  | { readonly kind: 'invoke' };

/** Where reading one property of a {@link ToolPath} leads. */
export type PathStep =
  /** Further along the way to a tool. */
  | ToolPath
  /** To a tool: a call site. */
  | { readonly kind: 'tool'; readonly serviceId: string; readonly toolId: string }
  /** Away from every tool (`cyrnel.output`, `globalThis.JSON`). */
  | { readonly kind: 'none' }
  /** To something the text cannot follow: a computed name, code built at run time. */
  | { readonly kind: 'unknown' };

const NONE: PathStep = { kind: 'none' };
const UNKNOWN: PathStep = { kind: 'unknown' };

/** Globals whose every reference leads somewhere on the way to a tool (or past what the text shows). */
export const ROOTS: Readonly<Record<string, ToolPath | 'unknown'>> = {
  cyrnel: { kind: 'cyrnel' },
  globalThis: { kind: 'global' },
  // They run code built at run time, which may call any tool.
  eval: 'unknown',
  Function: 'unknown',
};

/**
 * Read property `key` of `path` (`undefined`: a name computed at run time). The runtime's
 * `cyrnel.services` answers any name with a service, a service has `tools` (and `connection`, whose
 * result the text does not follow), and `tools`
 * answers any name with a tool; `cyrnel.invoke` has nothing but `call`, `apply` and `bind`, which
 * take the ids at run time.
 *
 * @example
 * ```ts
 * step({ kind: 'tools', serviceId: 'github' }, 'issues_list');
 * // { kind: 'tool', serviceId: 'github', toolId: 'issues_list' }
 * ```
 */
export function step(path: ToolPath, key: string | undefined): PathStep {
  if (key === undefined) return UNKNOWN;
  switch (path.kind) {
    case 'global': {
      const root = Object.hasOwn(ROOTS, key) ? ROOTS[key] : undefined;
      return root === undefined ? NONE : root === 'unknown' ? UNKNOWN : root;
    }
    case 'cyrnel':
      return key === 'services' ? { kind: 'services' } : key === 'invoke' ? { kind: 'invoke' } : NONE;
    case 'services':
      return { kind: 'service', serviceId: key };
    case 'service':
      // `connection(name)` answers the same tools with another connection: the text does not
      // follow a call's result, so what it leads to is unknown (never taken for no tool).
      return key === 'tools'
        ? { kind: 'tools', serviceId: path.serviceId }
        : key === 'connection'
          ? UNKNOWN
          : NONE;
    case 'tools':
      return { kind: 'tool', serviceId: path.serviceId, toolId: key };
    case 'invoke':
      return UNKNOWN;
  }
}
