import type { ToolDefinition } from '@cyrnel/sdk';

/**
 * Largest generated definition, counted as JSON with every tool's own `$defs` copy (*SPEC is silent*).
 * GitHub's REST description gives 9.3 MB. Each definition is converted once, but every tool schema
 * carries the definitions it reaches, so a large component referenced by thousands of operations would
 * otherwise become gigabytes when the host stores the definition.
 */
export const MAX_DEFINITION_BYTES = 128 * 1024 * 1024;

const MEMO_ENTRIES = 16;

/** Counts the JSON size of the tools of one definition and refuses past a limit. */
export interface DefinitionBudget {
  /** Add one tool's schemas; throws once the definition would exceed the limit. */
  charge(tool: ToolDefinition): void;
}

/**
 * Create the budget. Sizes are estimated without building the JSON (which is what must not happen), and
 * each object is measured once: the `$defs` entries shared by many tools and the values YAML aliases share.
 */
export function createDefinitionBudget(maxBytes = MAX_DEFINITION_BYTES): DefinitionBudget {
  const sizes = new WeakMap<object, number>();
  let total = 0;

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
    charge(tool) {
      total += sizeOf(tool) + 1;
      if (total > maxBytes) {
        const limit =
          maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / 1024 / 1024)} MiB` : `${maxBytes} bytes`;
        throw new Error(
          `definition too large: its tool schemas would exceed ${limit} as JSON (large schemas shared by many operations, or YAML aliases); refused`,
        );
      }
    },
  };
}
