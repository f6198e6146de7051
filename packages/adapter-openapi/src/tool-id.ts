import { toIdentifier } from '@cyrnel/sdk';

/**
 * The identifier for one operation before de-duplication: the SDK's `toIdentifier` of the
 * operationId, falling back to method + path, then to the method.
 */
export function toolIdCandidate(operationId: unknown, method: string, path: string): string {
  return toIdentifier(typeof operationId === 'string' ? operationId : '', `${method}_${path}`) || method;
}

/** Hands out unique ids in call order; a repeat (compared case-insensitively) gets `_2`, `_3`, ... */
export interface ToolIdAllocator {
  /** The unique id for this candidate. */
  allocate(candidate: string): string;
}

/** Create a fresh allocator (one per document). */
export function createToolIdAllocator(): ToolIdAllocator {
  const taken = new Set<string>();
  return {
    allocate(candidate) {
      let id = candidate;
      for (let n = 2; taken.has(id.toLowerCase()); n++) id = `${candidate}_${n}`;
      taken.add(id.toLowerCase());
      return id;
    },
  };
}
