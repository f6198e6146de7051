import { RESERVED_WORDS } from '@cyrnel/sdk';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A member name as written in a type: itself when it is an identifier, else quoted. */
export function memberKey(id: string): string {
  return IDENTIFIER.test(id) ? id : JSON.stringify(id);
}

// Names a type alias cannot take (TS2457) besides the reserved words.
// `Record` and `Omit` too: declarations refer to each other unqualified inside their namespace,
// where a shared schema of that name would shadow the global one the declarations use; and
// `CyrnelStub`, which the declarations of a budget use the same way.
const RESERVED_TYPE_NAMES = new Set([
  'Record',
  'Omit',
  'CyrnelStub',
  'any',
  'unknown',
  'never',
  'string',
  'number',
  'boolean',
  'symbol',
  'object',
  'bigint',
  'undefined',
  'void',
  'null',
  'this',
  'intrinsic',
  'infer',
  'keyof',
  'readonly',
  'unique',
  'asserts',
  'is',
  'type',
  'namespace',
  'declare',
  'module',
  'global',
  'let',
  'await',
  'yield',
  'as',
  'satisfies',
  'of',
  'from',
  'get',
  'set',
  'constructor',
  'abstract',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
  'static',
]);

/** A TypeScript identifier for `name`, unique among `used` (compared case-sensitively). */
export function identifierFor(name: string, used: Set<string>): string {
  let base = name.replace(/[^A-Za-z0-9_$]/g, '_');
  if (!/^[A-Za-z_$]/.test(base) || RESERVED_TYPE_NAMES.has(base) || RESERVED_WORDS.has(base))
    base = `_${base}`;
  let candidate = base;
  for (let n = 2; used.has(candidate); n++) candidate = `${base}_${n}`;
  used.add(candidate);
  return candidate;
}
