/**
 * Largest generated definition as JSON: the tools plus the shared schemas, each once. Component
 * schemas are shared by name, so what can still grow past this is a real bomb: YAML aliases, or inline schemas (`allOf` chains, shared parameters and bodies) that
 * expand once per use. The error names the largest part, so the cause can be found.
 */
export const MAX_DEFINITION_BYTES = 128 * 1024 * 1024;

const MEMO_ENTRIES = 16;

function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round(n / 1024 / 1024)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}

/** Counts the JSON size of the tools of one definition and refuses past a limit. */
export interface DefinitionBudget {
  /** Add one part (a tool, a shared schema) named `what`; throws once the definition would exceed the limit. */
  charge(what: string, value: unknown): void;
}

/**
 * Create the budget. Sizes are estimated without building the JSON (which is what must not happen), and
 * each large object is measured once: the values YAML aliases share.
 */
export function createDefinitionBudget(maxBytes = MAX_DEFINITION_BYTES): DefinitionBudget {
  const sizes = new WeakMap<object, number>();
  let total = 0;
  let largest = { what: '', size: 0 };

  function sizeOf(value: unknown): number {
    if (typeof value === 'string') return value.length + 2;
    if (typeof value !== 'object' || value === null) return String(value).length;
    const known = sizes.get(value);
    if (known !== undefined) return known;
    let size = 2;
    let entries = 0;
    if (Array.isArray(value)) {
      for (const item of value) size += sizeOf(item) + 1;
      entries = value.length;
    } else {
      for (const key in value) {
        size += key.length + 4 + sizeOf((value as Record<string, unknown>)[key]);
        entries++;
      }
    }
    // Remembering every object costs more than re-measuring a small one; large ones are remembered.
    if (entries > MEMO_ENTRIES) sizes.set(value, size);
    return size;
  }

  return {
    charge(what, value) {
      const size = sizeOf(value) + 1;
      total += size;
      if (size > largest.size) largest = { what, size };
      if (total > maxBytes) {
        throw new Error(
          `definition too large: its tools and shared schemas would exceed ${bytes(maxBytes)} as JSON; the largest part is ${largest.what} (${bytes(largest.size)}), which YAML aliases or inline schemas repeated without $ref (allOf chains, shared parameters or bodies) expand once per use; refused`,
        );
      }
    },
  };
}
