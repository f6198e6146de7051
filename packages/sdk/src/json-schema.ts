/**
 * A free-form JSON Schema document. cyrnel validates payloads against schemas internally;
 * adapters and environments treat them as opaque.
 */
export type JSONSchema = Record<string, unknown>;
