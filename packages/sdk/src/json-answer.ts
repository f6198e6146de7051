const BRAND = Symbol.for('cyrnel.jsonAnswer');

/**
 * A tool's answer as JSON text, as `EnvironmentBindings.invokeTool` may resolve it: the host's
 * egress gateway fetched, parsed and bounded it off the host's main thread, so the host passes
 * the text on instead of building the object tree there. Parse it where it is used (in the
 * sandbox), or read it with {@link answerValue}.
 *
 * @example
 * ```ts
 * const result = await bindings.invokeTool(eid, { serviceId, toolId, parameters });
 * const value = answerValue(result); // JSON.parse of the text, or the value itself
 * ```
 */
export class JsonAnswer {
  /** The answer's JSON text. */
  readonly json: string;
  constructor(json: string) {
    this.json = json;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for a {@link JsonAnswer} (of any copy of this package). */
export function isJsonAnswer(value: unknown): value is JsonAnswer {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** The value of a tool's answer: a {@link JsonAnswer} parsed, anything else as it is. */
export function answerValue(value: unknown): unknown {
  return isJsonAnswer(value) ? JSON.parse(value.json) : value;
}
