import { isOverlongName, MAX_IDENTIFIER_LENGTH } from '@cyrnel/sdk';
import type { ChildCallKind } from '../shared/sandbox-protocol';

/**
 * A call's arguments with a service or tool name longer than any id can be cut to one character
 * past that bound: it names nothing either way, and the host keeps only the first 128 characters
 * of such a name in records and errors, so the rest (a program may call a megabyte name) never
 * leaves this process, neither to the egress gateway nor to the server's main thread.
 *
 * @example
 * ```ts
 * boundCalledNames('invoke', ['x'.repeat(1_000_000), 'ping', {}]); // ['xxx…' (513 characters), 'ping', {}]
 * ```
 */
export function boundCalledNames(kind: ChildCallKind, args: readonly unknown[]): readonly unknown[] {
  if (kind !== 'invoke' && kind !== 'describeTool') return args;
  const [serviceId, toolId] = args;
  if (!isOverlongName(serviceId) && !isOverlongName(toolId)) return args;
  return [cut(serviceId), cut(toolId), ...args.slice(2)];
}

function cut(name: unknown): unknown {
  return typeof name === 'string' && isOverlongName(name) ? name.slice(0, MAX_IDENTIFIER_LENGTH + 1) : name;
}
