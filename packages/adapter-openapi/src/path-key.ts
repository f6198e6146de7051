import type { NormalizedParameter } from './normalized-operation';

/** A query pair of a `paths` key whose value is a template variable: `convert={convert}`. */
export interface KeyQueryBinding {
  /** The query name sent on the wire. */
  readonly name: string;
  /** The template variable the value comes from. */
  readonly variable: string;
}

/** A `paths` key split at its query string. */
export interface PathKey {
  /** The path template, e.g. `/uploads` for `/uploads?convert={convert}`. */
  readonly path: string;
  /** Query pairs bound to template variables, in key order. */
  readonly bound: readonly KeyQueryBinding[];
  /** The other pairs exactly as written (`a=b&flag`), or `''`. */
  readonly literal: string;
}

const VARIABLE = /^\{([^{}]+)\}$/;

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * Split a `paths` key such as `/uploads?convert={convert}&mode=fast` (OpenAPI forbids the query
 * string there, but real documents write it): `{ path: '/uploads', bound: [convert ← {convert}],
 * literal: 'mode=fast' }`. A pair whose value is exactly one `{variable}` is bound; a bare
 * `{variable}` pair binds a query name equal to the variable.
 */
export function parsePathKey(key: string): PathKey {
  const at = key.indexOf('?');
  if (at < 0) return { path: key, bound: [], literal: '' };
  const bound: KeyQueryBinding[] = [];
  const literal: string[] = [];
  for (const pair of key.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const variable = VARIABLE.exec(eq < 0 ? pair : pair.slice(eq + 1))?.[1];
    if (variable === undefined) literal.push(pair);
    else bound.push({ name: eq < 0 ? variable : decodeName(pair.slice(0, eq)), variable });
  }
  return { path: key.slice(0, at), bound, literal: literal.join('&') };
}

/**
 * The operation's parameters with the key's bound query pairs as query parameters. A declared query
 * parameter of the same name wins (nothing is added); a parameter declared `in: path` for a variable
 * that only the query string holds moves to the query (its schema and `required` kept); an
 * undeclared one becomes an optional string.
 */
export function bindKeyQuery(
  parameters: readonly NormalizedParameter[],
  key: PathKey,
): NormalizedParameter[] {
  if (key.bound.length === 0) return [...parameters];
  const inPath = new Set([...key.path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]));
  const queryOnly = new Set(key.bound.map((b) => b.variable).filter((v) => !inPath.has(v)));
  const declaredPath = new Map(
    parameters.filter((p) => p.in === 'path' && queryOnly.has(p.name)).map((p) => [p.name, p]),
  );
  const bound: NormalizedParameter[] = [];
  for (const { name, variable } of key.bound) {
    const taken = (p: NormalizedParameter) => p.in === 'query' && p.name === name;
    if (parameters.some(taken) || bound.some(taken)) continue;
    const declared = declaredPath.get(variable);
    const query = { in: 'query', style: 'form', explode: true, allowReserved: false } as const;
    bound.push(
      declared
        ? { ...declared, ...query, name }
        : {
            ...query,
            name,
            required: false,
            description: `Query parameter '${name}' of the path key (the document does not declare it)`,
            schema: { type: 'string' },
          },
    );
  }
  const kept = parameters.filter((p) => !(p.in === 'path' && queryOnly.has(p.name)));
  return [...kept, ...bound];
}
