/**
 * Host operations a sandbox may await, as the sandbox names them (everything but timers goes to
 * the bindings). The child checks what untrusted code asks for against this list; the host routes
 * each kind to its binding.
 */
export const HOST_CALL_KINDS = [
  'invoke',
  'discoverServices',
  'discoverTools',
  'describeTool',
  'discoverTypes',
] as const;

/** One of {@link HOST_CALL_KINDS}. */
export type HostCallKind = (typeof HOST_CALL_KINDS)[number];

const KINDS: ReadonlySet<unknown> = new Set(HOST_CALL_KINDS);

/** True when `kind` (from untrusted sandbox code) names a host call. */
export function isHostCallKind(kind: unknown): kind is HostCallKind {
  return KINDS.has(kind);
}
