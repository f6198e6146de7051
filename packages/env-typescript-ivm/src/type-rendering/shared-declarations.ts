import { sharedSchemaName } from '@cyrnel/sdk';
import { findDerivations } from './derived-types';
import { type Rendering, renderWithin } from './render-within';
import { renderSchemaType, stubType } from './schema-type';
import { type RefType, SCHEMAS_NAMESPACE, type ServiceScope } from './service-scope';
import { declarationComment } from './shared-schema-graph';
import { comment, INLINE_WIDTH, PACK_WIDTH } from './type-layout';

/** What the declarations of a rendering may still spend, and what one declaration may take. */
export interface TypesBudget {
  /** Characters left for declarations beyond those that must be written (may run below 0). */
  remaining: number;
  /** Characters one tool, type asked for or declaration may take before its nested objects become stubs; undefined: no budget. */
  readonly share: number | undefined;
}

/** A shared schema to declare, and whether it must be declared whole. */
export interface Wanted {
  readonly name: string;
  /** Used directly by a tool or asked for (or a part of one): declared whole whatever the budget. */
  readonly guaranteed: boolean;
}

// The members of a declaration and one level of their objects are always written.
const LEAST_DECLARATION_DEPTH = 1;

/** The name a stub of the shared schema `name`, or of a member path inside it, is asked for by. */
function stubLabel(scope: ServiceScope, name: string, path: readonly string[]): string {
  return [scope.serviceId, name, ...path].join('.');
}

function declarationLine(scope: ServiceScope, name: string, type: string, note: string): string {
  return `${comment(note, '  ')}  type ${scope.ids.get(name)} = ${type};`;
}

/**
 * How a declaration names the others: in place of the name of a stub or of a type written where it
 * is used, its text (neither is declared).
 */
function namingStubs(scope: ServiceScope, from: string, stubs: ReadonlyMap<string, string>): RefType {
  const named = scope.refType(from);
  return (ref, direct) => {
    const type = named(ref, direct);
    const target = sharedSchemaName(ref);
    const stub = type === null || target === undefined ? undefined : stubs.get(target);
    if (stub === undefined) return type;
    // Written where a name was, which binds like an atom: a union is bracketed.
    return stub.includes(' | ') ? `(${stub})` : stub;
  };
}

/** The declaration of `name` at a stub depth (undefined: none), naming the stubs' types. */
function renderAt(
  scope: ServiceScope,
  schema: unknown,
  name: string,
  depth: number | undefined,
  refType: RefType,
  record?: { refs: string[]; stubs: string[]; direct: string[] },
  maxLength?: number,
): string {
  return renderSchemaType(schema, {
    indent: 1,
    ...(maxLength === undefined ? {} : { maxLength }),
    inlineWidth: INLINE_WIDTH,
    packWidth: PACK_WIDTH,
    refType,
    ...(record ? { record } : {}),
    ...(depth === undefined ? {} : { stub: { depth, name: (path) => stubLabel(scope, name, path) } }),
  });
}

/** The whole declaration of `name`, its nested objects beyond the share made stubs. */
function renderFull(scope: ServiceScope, name: string, budget: TypesBudget): Rendering {
  return renderWithin(
    (depth, record, _squeeze, maxLength) =>
      renderAt(scope, scope.schemas[name], name, depth, scope.refType(name), record, maxLength),
    LEAST_DECLARATION_DEPTH,
    budget.share,
  );
}

/** `name` as a stub: every object in it is `CyrnelStub<"<service>.<name>">` (null, strings and the like stay). */
function renderStub(scope: ServiceScope, name: string): string {
  const label = stubLabel(scope, name, []);
  return renderSchemaType(scope.schemas[name], {
    refType: () => stubType(label),
    stub: { depth: -1, name: () => label },
  });
}

/**
 * The namespace of one service's shared schemas: those wanted, then breadth first those their
 * declarations refer to, each declared whole while the budget lasts (with the stubs it would
 * add), or when that is no longer than its stub; else a stub, written where it is used
 * (`CyrnelStub<"github.team">`), not declared, as is a type without references whose one line is
 * shorter than its stub (`{ enabled: boolean }`). The parts of an alias or an intersection
 * (`repository | null`, `directoryObject & {…}`) are the declaration's own members and share its
 * guarantee. Returns the namespace's text (empty without declarations) and whether it uses stubs.
 */
export function sharedDeclarations(
  scope: ServiceScope,
  wanted: readonly Wanted[],
  budget: TypesBudget,
): { text: string; stubs: boolean } {
  const full = new Map<string, Rendering>();
  const stubs = new Map<string, string>();
  const inlined = new Map<string, string>();
  const decided = (name: string) => full.has(name) || stubs.has(name) || inlined.has(name);
  let level = [...wanted];
  while (level.length > 0) {
    const next: Wanted[] = [];
    for (let i = 0; i < level.length; i++) {
      const { name, guaranteed } = level[i] as Wanted;
      if (decided(name) || scope.schemas[name] === undefined) continue;
      const whole = renderFull(scope, name, budget);
      const size = whole.text.length + name.length + 10;
      const stub = budget.share === undefined ? undefined : renderStub(scope, name);
      // What declaring it whole costs: itself, and at most a stub for each name it adds.
      const added = new Set(
        whole.refs.map((ref) => sharedSchemaName(ref) ?? '').filter((ref) => ref && !decided(ref)),
      );
      const cost = size + [...added].reduce((sum, ref) => sum + ref.length + scope.serviceId.length + 16, 0);
      const small = whole.refs.length === 0 && !whole.text.includes('\n');
      if (stub !== undefined && !guaranteed && small && whole.text.length <= stub.length) {
        // Written where it is used (`automatic_tax: { enabled: boolean }`): shorter than its stub.
        inlined.set(name, whole.text);
        budget.remaining -= whole.text.length;
      } else if (stub === undefined || guaranteed || size <= stub.length || cost <= budget.remaining) {
        full.set(name, whole);
        budget.remaining -= size;
        // The parts of an alias or an intersection are the declaration's own members: same level.
        const direct = new Set(whole.direct);
        for (const ref of whole.refs) {
          const target = sharedSchemaName(ref);
          if (target === undefined) continue;
          if (direct.has(ref)) level.push({ name: target, guaranteed });
          else next.push({ name: target, guaranteed: false });
        }
      } else {
        stubs.set(name, stub);
        budget.remaining -= stub.length;
      }
    }
    level = next;
  }
  if (full.size === 0) return { text: '', stubs: stubs.size > 0 };
  return { text: namespaceText(scope, full, new Map([...stubs, ...inlined])), stubs: stubs.size > 0 };
}

/** The whole declarations, sorted by name; near-copies of other whole ones written from them. */
function namespaceText(
  scope: ServiceScope,
  full: ReadonlyMap<string, Rendering>,
  stubs: ReadonlyMap<string, string>,
): string {
  const names = [...full.keys()].sort();
  const memberType = (schema: unknown) => renderSchemaType(schema, { refType: scope.refType('') });
  const derivations = findDerivations(scope.schemas, names, memberType);
  const lines = names.map((name) => {
    const { depth, maxLength } = full.get(name) as Rendering;
    const refType = namingStubs(scope, name, stubs);
    const derived = derivations.get(name);
    const note = declarationComment(name, scope.schemas, scope.given, derived?.base);
    if (!derived)
      return declarationLine(
        scope,
        name,
        renderAt(scope, scope.schemas[name], name, depth, refType, undefined, maxLength),
        note,
      );
    let type = renderAt(scope, derived.own, name, depth, refType, undefined, maxLength);
    const baseId = scope.ids.get(derived.base);
    const base =
      derived.omitted.length === 0
        ? baseId
        : `Omit<${baseId}, ${derived.omitted.map((member) => JSON.stringify(member)).join(' | ')}>`;
    type = type === 'Record<string, never>' ? `${base}` : `${base} & ${type}`;
    if (derived.nullable) type = `(${type}) | null`;
    return declarationLine(scope, name, type, note);
  });
  return `declare namespace ${SCHEMAS_NAMESPACE}.${scope.namespace} {\n${lines.join('\n')}\n}`;
}
