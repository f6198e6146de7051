// The validation worker: compiles JSON Schemas with Ajv and checks values against them, off the
// host's main thread (a hostile schema or value must not stall it). Self-contained on purpose: it runs from `dist/` as its own tsup
// entry and, in core's own tests, straight from `src/` through Node's type stripping, so it imports
// packages only (no relative modules) and uses only erasable TypeScript.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { type JSONSchema, withSharedSchemas } from '@cyrnel/sdk';
import type Ajv07 from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type Ajv2019 from 'ajv/dist/2019.js';
import type Ajv2020 from 'ajv/dist/2020.js';
import type AjvDraft04 from 'ajv-draft-04';
import type addFormats from 'ajv-formats';
import type { RE2JS } from 're2js';

/** A request from the main thread. `schema` is sent when this worker may not have `key` yet. */
export interface CheckRequest {
  readonly id: number;
  readonly key: string;
  readonly schema?: unknown;
  /** Names the shared schemas `schema` resolves `#/$defs/<name>` against. */
  readonly sharedKey?: string;
  /** The shared schemas of `sharedKey`, sent when this worker may not hold them yet. */
  readonly shared?: Readonly<Record<string, JSONSchema>>;
  readonly value: unknown;
  readonly redact: boolean;
}

/** The answer to one {@link CheckRequest}. */
export type CheckReply =
  | { readonly id: number; readonly kind: 'valid' }
  | { readonly id: number; readonly kind: 'invalid'; readonly issues: { path: string; message: string }[] }
  | { readonly id: number; readonly kind: 'unknown-schema' }
  | { readonly id: number; readonly kind: 'bad-schema'; readonly message: string }
  | { readonly id: number; readonly kind: 'failed'; readonly message: string };

type AjvInstance = InstanceType<typeof Ajv2020>;

/** Ajv, its drafts and formats, and RE2: what compiling a schema needs. */
interface ValidatorPackages {
  readonly Ajv07: typeof Ajv07;
  readonly Ajv2019: typeof Ajv2019;
  readonly Ajv2020: typeof Ajv2020;
  readonly AjvDraft04: typeof AjvDraft04;
  readonly addFormats: typeof addFormats;
  readonly RE2JS: typeof RE2JS;
}

let loaded: ValidatorPackages | undefined;
/**
 * The packages, loaded by the first compilation (each ships a CommonJS entry): an egress gateway
 * worker starts listening without them, and holds them only once it validates a call.
 */
function validatorPackages(): ValidatorPackages {
  if (!loaded) {
    const load = createRequire(import.meta.url);
    loaded = {
      Ajv07: load('ajv'),
      Ajv2019: load('ajv/dist/2019.js'),
      Ajv2020: load('ajv/dist/2020.js'),
      AjvDraft04: load('ajv-draft-04'),
      addFormats: load('ajv-formats'),
      RE2JS: (load('re2js') as typeof import('re2js')).RE2JS,
    };
  }
  return loaded;
}
type Draft = '04' | '07' | '2019-09' | '2020-12';

/** Strings longer than this are not run through a pattern that needs the backtracking engine. */
const MAX_BACKTRACKING_INPUT = 1000;
const MAX_VALIDATORS = 2000;
/** Shared schema sets kept (one per service definition in use); the oldest is dropped first. */
const MAX_SHARED = 32;
const MAX_ISSUES = 50;
// Composite keywords only say "a subschema failed"; the concrete problems are reported as well.
const COMPOSITE = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'then', 'else', '$ref', 'dependentSchemas']);

/**
 * Translate ECMA-262 escapes that RE2 spells differently (`\uXXXX`, `\u{X}` → `\x{X}`); an escaped
 * backslash is kept as it is.
 */
function toRe2Syntax(pattern: string): string {
  return pattern.replace(/\\\\|\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g, (match, braced, four) =>
    match === '\\\\' ? match : `\\x{${braced ?? four}}`,
  );
}

/**
 * Patterns run on RE2 (linear time in the input, whatever the pattern); the few that RE2 cannot
 * express (look-around, back-references) fall back to the native engine, but only for inputs up to
 * {@link MAX_BACKTRACKING_INPUT} characters: a longer string does not match them. `toString` must
 * tell patterns apart: Ajv shares compiled patterns by it.
 */
function safeRegExp(pattern: string, flags: string): { test(input: string): boolean; toString(): string } {
  const describe = () => `/${pattern}/${flags}`;
  try {
    const { RE2JS } = validatorPackages();
    const re = RE2JS.compile(toRe2Syntax(pattern), flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
    return { test: (input) => re.matcher(input).find(), toString: describe };
  } catch {
    const native = new RegExp(pattern, flags);
    return {
      test: (input) => input.length <= MAX_BACKTRACKING_INPUT && native.test(input),
      toString: describe,
    };
  }
}
safeRegExp.code = 'safeRegExp';

/** `format: "url"`: what the WHATWG URL parser accepts with an http(s) or ftp scheme (no regex). */
function isUrl(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && /^(?:https?|ftp):$/.test(url.protocol) && url.host !== '';
}

function createAjv(draft: Draft): AjvInstance {
  const { Ajv07, Ajv2019, Ajv2020, AjvDraft04, addFormats } = validatorPackages();
  const options: Options = {
    strict: false,
    allErrors: true,
    validateSchema: false,
    addUsedSchema: false,
    allowUnionTypes: true,
    logger: false,
    code: { regExp: safeRegExp },
  };
  const ajv =
    draft === '04'
      ? new AjvDraft04(options)
      : draft === '07'
        ? new Ajv07(options)
        : draft === '2019-09'
          ? new Ajv2019(options)
          : new Ajv2020(options);
  addFormats(ajv as AjvInstance);
  ajv.addFormat('url', { type: 'string', validate: isUrl });
  return ajv as AjvInstance;
}

/** The draft a schema asks for with `$schema`; 2020-12 when it names none (or one we do not know). */
function draftOf(schema: unknown): Draft {
  const uri =
    typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  if (typeof uri !== 'string') return '2020-12';
  if (uri.includes('draft-04')) return '04';
  if (uri.includes('draft-06') || uri.includes('draft-07')) return '07';
  if (uri.includes('2019-09')) return '2019-09';
  return '2020-12';
}

const instances = new Map<Draft, AjvInstance>();
const validators = new Map<string, ValidateFunction>();
// Only the closure a tool schema reaches becomes its `$defs` (by reference, no copies), so Ajv
// walks what the tool uses, not every schema of the service.
const sharedSets = new Map<string, Readonly<Record<string, JSONSchema>>>();

/**
 * Compile a schema with the worker's rules (its draft, patterns on RE2, `format: url`). Also used
 * by the egress gateway's workers for portable calls (`direct-calls/direct-call-runtime.ts`).
 */
export function compile(schema: unknown): ValidateFunction {
  const draft = draftOf(schema);
  let ajv = instances.get(draft);
  if (!ajv) {
    ajv = createAjv(draft);
    instances.set(draft, ajv);
  }
  // The draft is chosen above; Ajv would look `$schema` up as a meta-schema it may not hold.
  const { $schema: _chosen, ...rest } =
    typeof schema === 'object' && schema !== null && !Array.isArray(schema)
      ? (schema as Record<string, unknown>)
      : { $schema: undefined };
  return ajv.compile(typeof schema === 'boolean' ? schema : rest);
}

/**
 * A message that cannot describe the (secret) value: the keyword only, except for `required`, whose
 * missing property is named by the schema, never by the value, so it is safe to say.
 */
function redactedMessage(error: ErrorObject): string {
  const missing = (error.params as { missingProperty?: unknown }).missingProperty;
  if (error.keyword === 'required' && typeof missing === 'string')
    return `must have required property '${missing}'`;
  return `does not satisfy "${error.keyword}"`;
}

function toIssues(errors: readonly ErrorObject[], redact: boolean): { path: string; message: string }[] {
  const seen = new Set<string>();
  const issues: { path: string; message: string }[] = [];
  for (const error of errors) {
    if (errors.length > 1 && COMPOSITE.has(error.keyword)) continue;
    const path = error.instancePath === '' ? '/' : error.instancePath;
    const message = redact ? redactedMessage(error) : (error.message ?? error.keyword);
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message });
    if (issues.length === MAX_ISSUES) break;
  }
  return issues;
}

function handle(request: CheckRequest): CheckReply {
  const { id, key } = request;
  let validate = validators.get(key);
  if (!validate) {
    if (request.schema === undefined) return { id, kind: 'unknown-schema' };
    let schema = request.schema;
    if (request.sharedKey !== undefined) {
      if (request.shared !== undefined) {
        sharedSets.delete(request.sharedKey);
        sharedSets.set(request.sharedKey, request.shared);
        for (const oldest of sharedSets.keys()) {
          if (sharedSets.size <= MAX_SHARED) break;
          sharedSets.delete(oldest);
        }
      }
      const shared = sharedSets.get(request.sharedKey);
      if (shared === undefined) return { id, kind: 'unknown-schema' };
      if (typeof schema === 'object' && schema !== null && !Array.isArray(schema))
        schema = withSharedSchemas(schema as JSONSchema, shared);
    }
    try {
      validate = compile(schema);
    } catch (error) {
      return { id, kind: 'bad-schema', message: error instanceof Error ? error.message : String(error) };
    }
    if (validators.size >= MAX_VALIDATORS) {
      // Ajv keeps compiled code per instance: start over rather than grow without bound.
      validators.clear();
      instances.clear();
    }
    validators.set(key, validate);
  }
  try {
    if (validate(request.value)) return { id, kind: 'valid' };
  } catch (error) {
    return { id, kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
  return { id, kind: 'invalid', issues: toIssues(validate.errors ?? [], request.redact) };
}

/**
 * What the schema checker starts this worker with (`ValidationWorkerData`): only then does it
 * answer checks. The egress gateway's workers import `compile` from this module too, and must not
 * answer their own messages with checks.
 */
export interface ValidationWorkerData {
  readonly cyrnelValidation: true;
}

if ((workerData as Partial<ValidationWorkerData> | null)?.cyrnelValidation === true)
  parentPort?.on('message', (request: CheckRequest) => {
    parentPort?.postMessage(handle(request));
  });
