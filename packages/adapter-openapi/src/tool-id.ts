import { RESERVED_WORDS } from '@cyrnel/sdk';

function sanitize(raw: string): string {
  return raw
    .replace(/[^A-Za-z0-9_$]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * The identifier for one operation before de-duplication (SPEC §9 "OpenAPI tool ids"): characters
 * outside `[A-Za-z0-9_$]` become `_`, runs collapse, `_` trimmed, a leading digit gets a `_` prefix,
 * empty falls back to method + path, a reserved word gets a trailing `_`.
 */
export function toolIdCandidate(operationId: unknown, method: string, path: string): string {
  let id = typeof operationId === 'string' ? sanitize(operationId) : '';
  if (id === '') id = sanitize(`${method}_${path}`) || method;
  if (/^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED_WORDS.has(id)) id = `${id}_`;
  return id;
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
