import { isPlainObject } from '@cyrnel/sdk';
import { pointerSegments, resolvePointer } from './json-pointer';

/** A `oneOf`/`anyOf` whose branch is chosen by a tag property (OpenAPI `discriminator`). */
export interface DiscriminatedUnion {
  /** The tag property. */
  readonly propertyName: string;
  /** Tag value → the raw local `$ref` of the schema that value selects, explicit mapping first. */
  readonly tags: ReadonlyArray<readonly [tag: string, ref: string]>;
}

type Discriminator = { propertyName: string; mapping?: unknown };

function asDiscriminator(value: unknown): Discriminator | undefined {
  return isPlainObject(value) && typeof value.propertyName === 'string'
    ? (value as Discriminator)
    : undefined;
}

/** The component name a ref points at (`#/components/schemas/Cat`, `#/definitions/Cat` → `Cat`). */
function componentName(ref: string): string | undefined {
  const segments = pointerSegments(ref);
  if (segments.length === 3 && segments[0] === 'components' && segments[1] === 'schemas') return segments[2];
  if (segments.length === 2 && segments[0] === 'definitions') return segments[1];
  return undefined;
}

function exists(root: unknown, ref: string): boolean {
  try {
    resolvePointer(root, ref);
    return true;
  } catch {
    return false;
  }
}

/** A discriminator mapping value as a local ref: a ref already, or a bare schema name; external refs give undefined. */
export function mappingRef(target: unknown, root: unknown): string | undefined {
  if (typeof target !== 'string') return undefined;
  if (target.startsWith('#')) return target;
  if (!/^[^#/:]+$/.test(target)) return undefined;
  const escaped = target.replace(/~/g, '~0').replace(/\//g, '~1');
  return [`#/components/schemas/${escaped}`, `#/definitions/${escaped}`].find((ref) => exists(root, ref));
}

// The discriminator a branch inherits: on its target or on an `allOf` ancestor (the Pet/Cat/Dog pattern).
function inheritedDiscriminator(ref: string, root: unknown): Discriminator | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [{ $ref: ref }];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    if (seen.has(node)) continue;
    seen.add(node);
    if (!isPlainObject(node)) continue;
    if (typeof node.$ref === 'string') {
      if (seen.has(node.$ref) || !exists(root, node.$ref)) continue;
      seen.add(node.$ref);
      queue.push(resolvePointer(root, node.$ref));
      continue;
    }
    const own = asDiscriminator(node.discriminator);
    if (own) return own;
    if (Array.isArray(node.allOf)) queue.push(...node.allOf);
  }
  return undefined;
}

/**
 * The discriminated union a raw schema describes, if any: a `oneOf`/`anyOf` with its own
 * `discriminator`, or one whose branches are all `$ref`s inheriting the same discriminator through
 * `allOf`. Tags come from the explicit `mapping`, then implicitly from the branches' component names
 * (a branch already targeted by the mapping gets no implicit tag, as the OpenAPI example describes).
 */
export function discriminatedUnion(
  schema: Readonly<Record<string, unknown>>,
  root: unknown,
): DiscriminatedUnion | undefined {
  const branches = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : [];
  if (branches.length === 0) return undefined;
  const refs = branches.map((b) => (isPlainObject(b) && typeof b.$ref === 'string' ? b.$ref : undefined));
  let discriminators: Discriminator[];
  const own = asDiscriminator(schema.discriminator);
  if (own) discriminators = [own];
  else {
    discriminators = [];
    for (const ref of refs) {
      const inherited = ref === undefined ? undefined : inheritedDiscriminator(ref, root);
      if (!inherited) return undefined;
      discriminators.push(inherited);
    }
    if (new Set(discriminators.map((d) => d.propertyName)).size !== 1) return undefined;
  }
  const tags = new Map<string, string>();
  for (const { mapping } of discriminators) {
    if (!isPlainObject(mapping)) continue;
    for (const [tag, target] of Object.entries(mapping)) {
      const ref = mappingRef(target, root);
      if (ref !== undefined && !tags.has(tag)) tags.set(tag, ref);
    }
  }
  const mapped = new Set(tags.values());
  for (const ref of refs) {
    const name = ref === undefined ? undefined : componentName(ref);
    if (ref !== undefined && name !== undefined && !tags.has(name) && !mapped.has(ref)) tags.set(name, ref);
  }
  const first = discriminators[0];
  if (!first || tags.size === 0) return undefined;
  return { propertyName: first.propertyName, tags: [...tags] };
}
