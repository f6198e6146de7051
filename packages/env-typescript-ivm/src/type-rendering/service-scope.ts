import { type JSONSchema, sharedSchemaClosure, sharedSchemaName, type ToolDocsInput } from '@cyrnel/sdk';
import { circularRefs, withNullableTwins } from './shared-schema-graph';
import { identifierFor } from './type-identifiers';
import type { LookupSource } from './type-lookup';

/** The namespace the shared schemas of every service are declared in: `CyrnelSchemas.<service>.<name>`. */
export const SCHEMAS_NAMESPACE = 'CyrnelSchemas';

/** Names a `$ref` as a declared type, `null` for `unknown`, undefined to inline it (see `renderSchemaType`). */
export type RefType = (ref: string, direct: boolean) => string | null | undefined;

/** One service's shared schemas as the declarations of a rendering see them. */
export interface ServiceScope {
  readonly serviceId: string;
  /** The service id as an identifier: `CyrnelSchemas.<namespace>`, `CyrnelTools.<namespace>`. */
  readonly namespace: string;
  /** The shared schemas as the host gave them. */
  readonly given: Readonly<Record<string, JSONSchema>>;
  /** The same with the nullable twins of reached ones written as `<other> | null`. */
  readonly schemas: Readonly<Record<string, JSONSchema>>;
  /** The TypeScript identifier of every shared schema (over all of them, so a name never depends on the selection). */
  readonly ids: ReadonlyMap<string, string>;
  /** How names are written from inside the declaration `from`, or qualified from outside (undefined). */
  refType(from: string | undefined): RefType;
  /** What requested names are looked up in. */
  readonly lookup: LookupSource;
}

/**
 * The scope of one service: `roots` are the schemas whose shared schemas may be declared (the
 * selected tools' and the requested types'), which decide the nullable twins and the references
 * broken to keep aliases from being circular.
 */
export function createServiceScope(lookup: ServiceLookup, roots: readonly unknown[]): ServiceScope {
  const { serviceId, ids } = lookup;
  const shared = lookup.schemas ?? {};
  const reached = new Set<string>();
  for (const root of roots)
    for (const name of Object.keys(sharedSchemaClosure(root, shared))) reached.add(name);
  const names = [...reached].sort();
  const schemas = withNullableTwins(shared, names);
  const broken = circularRefs(schemas, names);
  const namespace = identifierFor(serviceId, new Set());
  const prefix = `${SCHEMAS_NAMESPACE}.${namespace}.`;
  return {
    serviceId,
    namespace,
    given: shared,
    schemas,
    ids,
    // Inside the namespace its members are named unqualified; from the tools, qualified.
    refType: (from) => (ref, direct) => {
      const name = sharedSchemaName(ref);
      const id = name === undefined ? undefined : ids.get(name);
      if (id === undefined) return undefined;
      if (from === undefined) return `${prefix}${id}`;
      return direct && broken.has(`${from}\u0000${name}`) ? null : id;
    },
    lookup,
  };
}

/** A service's names: its shared schemas with their identifiers, and the tools at hand. */
export interface ServiceLookup extends LookupSource {
  readonly serviceId: string;
  /** The TypeScript identifier of every shared schema (over all of them, so a name never depends on the selection). */
  readonly ids: ReadonlyMap<string, string>;
}

/** The names of one service, for looking requested types up before a scope exists. */
export function serviceLookup(
  serviceId: string,
  schemas: Readonly<Record<string, JSONSchema>> | undefined,
  tools: ReadonlyMap<string, ToolDocsInput>,
): ServiceLookup {
  const used = new Set<string>();
  const ids = new Map(
    Object.keys(schemas ?? {})
      .sort()
      .map((name) => [name, identifierFor(name, used)]),
  );
  return { serviceId, schemas, ids, byIdentifier: new Map([...ids].map(([name, id]) => [id, name])), tools };
}
