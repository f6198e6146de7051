/** Decode one JSON Pointer segment (RFC 6901), after URI-fragment percent-decoding. */
function decodeSegment(segment: string): string {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A lone '%' is not an escape: keep the segment verbatim.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Split a local `$ref` (`#/a/b~1c`) into decoded segments; throws for non-local refs. */
export function pointerSegments(ref: string): string[] {
  if (!ref.startsWith('#')) {
    throw new Error(`unsupported $ref '${ref}': only local references ('#/...') are resolved`);
  }
  const body = ref.slice(1);
  if (body === '') return [];
  if (!body.startsWith('/')) throw new Error(`unsupported $ref '${ref}': not a JSON Pointer`);
  return body.slice(1).split('/').map(decodeSegment);
}

/** The value a local `$ref` points to inside `root`; throws an Error naming the pointer when absent. */
export function resolvePointer(root: unknown, ref: string): unknown {
  let node: unknown = root;
  for (const segment of pointerSegments(ref)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) {
      throw new Error(`unresolvable $ref '${ref}'`);
    }
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
