/**
 * Deepest nesting of arrays and objects a JSON value may have where it crosses into a cyrnel host:
 * the HTTP API's default request body depth (`maxJsonDepth`, 400 beyond), the output a process may
 * record (`invalid_request` beyond), and what sandbox code may pass to `cyrnel.output` and host
 * calls in the `typescript-ivm` environment. One number, so an output can always be posted
 * back as it is; far above what any config, patch or tool parameter needs, far below what would
 * make a recursive reader (structured clone, `JSON`, schema validation) exhaust its stack.
 *
 * @example
 * ```ts
 * import { MAX_JSON_DEPTH } from '@cyrnel/sdk';
 * const tooDeep = (depth: number) => depth > MAX_JSON_DEPTH;
 * ```
 */
export const MAX_JSON_DEPTH = 64;
