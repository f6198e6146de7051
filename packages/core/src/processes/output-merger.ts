import { isPlainObject, MAX_JSON_DEPTH } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';
import { jsonDepthExceeds } from '../json/json-shape';

/** `value` as JSON text, refusing values nested deeper than the output allows. */
function outputJson(key: string, value: unknown): string | undefined {
  const tooDeep = () =>
    cyrnelError(
      'invalid_request',
      `output is nested too deeply: it allows at most ${MAX_JSON_DEPTH} levels of arrays and objects`,
      { details: [{ path: `output.${key}`, message: 'nested too deeply' }] },
    );
  let json: string | undefined;
  try {
    json = JSON.stringify(value) as string | undefined;
  } catch (error) {
    // JSON.stringify recurses: a value thousands of levels deep exhausts the stack.
    if (error instanceof RangeError) throw tooDeep();
    throw error;
  }
  // The output object itself is the first level.
  if (json !== undefined && jsonDepthExceeds(json, MAX_JSON_DEPTH - 1)) throw tooDeep();
  return json;
}

/** The merged `cyrnel.output` object of one run, with the size cap. */
export interface OutputMerger {
  /**
   * Merge `patch` shallowly and answer it in its JSON form; throws when it is not an object, is
   * nested deeper than `MAX_JSON_DEPTH` or the result would exceed the cap (then nothing is merged).
   */
  merge(patch: unknown): Record<string, unknown>;
  /** The merged object. */
  value(): Record<string, unknown>;
  /** UTF-8 bytes of the merged object's JSON text (`JSON.stringify(value())`), kept as patches merge. */
  bytes(): number;
}

/**
 * Create a merger. Sizes are tracked per key so that a patch costs the size of the patch, not
 * of the whole output: `{"k":v,...}` is 2 bytes plus, per key, its JSON key, a colon, its JSON
 * value and a comma (one comma too many, which is conservative by one byte).
 */
export function createOutputMerger(maxBytes: number): OutputMerger {
  // Without a prototype, as the patches (see `merge`).
  const output: Record<string, unknown> = Object.create(null);
  const sizes = new Map<string, number>();
  let total = 2;

  return {
    merge(patch) {
      if (!isPlainObject(patch)) throw cyrnelError('invalid_request', 'output must be a plain object');
      const next = new Map<string, string | undefined>();
      let nextTotal = total;
      const texts = Object.entries(patch).map(([key, value]) => [key, outputJson(key, value)] as const);
      for (const [key, json] of texts) {
        // undefined (and functions) have no JSON form: like JSON.stringify, drop the key.
        const size =
          json === undefined ? 0 : Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(json) + 2;
        nextTotal += size - (sizes.get(key) ?? 0);
        sizes.set(key, size);
        next.set(key, json);
      }
      if (nextTotal > maxBytes) {
        for (const key of next.keys()) sizes.delete(key);
        for (const [key, value] of Object.entries(output)) {
          sizes.set(
            key,
            Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(value)) + 2,
          );
        }
        throw cyrnelError('payload_too_large', `output exceeds the ${maxBytes}-byte cap`);
      }
      // Objects without a prototype: V8 keeps them as dictionaries, so a patch of hundreds of keys
      // costs no new object shape per key, and a `__proto__` key is a plain own property.
      const applied: Record<string, unknown> = Object.create(null);
      for (const [key, json] of next) {
        if (json === undefined) {
          delete output[key];
          sizes.delete(key);
        } else {
          // Stored as its JSON form: what is replayed live is exactly what is persisted.
          const value: unknown = JSON.parse(json);
          output[key] = value;
          applied[key] = value;
        }
      }
      total = nextTotal;
      return applied;
    },
    value: () => output,
    // `total` counts a comma after every key: the last one is not written.
    bytes: () => (sizes.size === 0 ? 2 : total - 1),
  };
}
