import { createRequire } from 'node:module';
import { isPlainObject } from '@cyrnel/sdk';
import { assertAcyclic } from './assert-acyclic';

let yaml: typeof import('yaml') | undefined;
/** The `yaml` package, loaded by the first YAML document: JSON ones never need it. */
function yamlPackage(): typeof import('yaml') {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml;
}

/** The OpenAPI dialects the adapter reads. */
export type OpenApiDialect = '2.0' | '3.0' | '3.1';

/** A parsed document with its dialect. */
export interface ParsedDocument {
  /** Which specification the document follows. */
  readonly dialect: OpenApiDialect;
  /** The raw parsed object (never mutated). */
  readonly root: Record<string, unknown>;
}

/**
 * How far one YAML anchor may be expanded: its uses times the aliases nested inside it (the `yaml`
 * package's measure; its default is 100). Aliased nodes are shared, but every later walk over the
 * document (schema conversion, the definition's JSON) expands them, so a few hundred bytes of nested
 * aliases would otherwise become gigabytes. 1,000 leaves room for an anchor reused by every operation of
 * a large hand-written document.
 */
export const MAX_YAML_ALIAS_COUNT = 1000;

function parseText(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // Not strict JSON: YAML is a superset and may still read it (comments, trailing commas are errors there too).
    }
  }
  let value: unknown;
  try {
    // Merge keys appear in hand-written YAML documents; duplicate keys (a common hand-editing slip) do
    // not reject the whole document.
    value = yamlPackage().parse(text, {
      merge: true,
      maxAliasCount: MAX_YAML_ALIAS_COUNT,
      uniqueKeys: false,
      prettyErrors: false,
      logLevel: 'error',
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    if (reason?.includes('Excessive alias count')) {
      throw new Error(
        `definition expands YAML aliases too far (an anchor used more than ${MAX_YAML_ALIAS_COUNT} times, counting aliases nested inside it; a "billion laughs" document): refused`,
      );
    }
    throw new Error(`definition is neither valid JSON nor valid YAML: ${reason}`);
  }
  assertAcyclic(value);
  return value;
}

// An unquoted `swagger: 2.0` or `openapi: 3.0` is a YAML (and JSON) number, which prints as '2' or '3':
// a whole number is read back with its '.0'.
function versionText(value: unknown): string {
  return typeof value === 'number' && Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/**
 * Parse a definition text (JSON or YAML) and identify Swagger 2.0, OpenAPI 3.0.x or 3.1.x.
 * Throws an Error naming the problem for anything else.
 */
export function parseDocument(text: string): ParsedDocument {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new Error('definition is empty: expected an OpenAPI document (JSON or YAML)');
  }
  const root = parseText(text);
  if (!isPlainObject(root)) {
    throw new Error('not an OpenAPI document: expected a JSON or YAML object at the top level');
  }
  if (root.swagger !== undefined) {
    const version = versionText(root.swagger);
    if (version === '2.0') return { dialect: '2.0', root };
    throw new Error(`unsupported Swagger version '${version}' (supported: 2.0, 3.0.x, 3.1.x)`);
  }
  if (root.openapi !== undefined) {
    const version = versionText(root.openapi);
    if (/^3\.0(\.\d+)?(-[\w.]+)?$/.test(version)) return { dialect: '3.0', root };
    if (/^3\.1(\.\d+)?(-[\w.]+)?$/.test(version)) return { dialect: '3.1', root };
    throw new Error(`unsupported OpenAPI version '${version}' (supported: 2.0, 3.0.x, 3.1.x)`);
  }
  throw new Error("not an OpenAPI document: no 'openapi' or 'swagger' version field");
}
