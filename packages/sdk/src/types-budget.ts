/**
 * The default budget of type declarations for a selection (`TypesSelection.maxBytes`): 4 KiB a
 * tool, about 1,000 tokens, so the 5 tools an agent picks stay about 20 KiB (5,000 tokens) of its
 * prompt whatever the API (5 of Stripe's tools were 220 KB whole). Beyond it, nested objects and
 * shared schemas become named stubs the agent asks for by name.
 *
 * @example
 * ```ts
 * const declarations = await client.environment.types({ tools: ['stripe.PostCustomers'], maxBytes: DEFAULT_TYPES_MAX_BYTES * 2 });
 * ```
 */
export const DEFAULT_TYPES_MAX_BYTES = 4096;

/** The least `maxBytes` a selection may ask for: below it nothing but what must be written would fit. */
export const MIN_TYPES_MAX_BYTES = 512;

/** The most `maxBytes` a selection may ask for (per tool): a whole large tool with its schemas. */
export const MAX_TYPES_MAX_BYTES = 1_000_000;
