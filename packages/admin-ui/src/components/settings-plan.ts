import type { JsonPatch } from '@cyrnel/sdk/api';
import { checkJson, describeJsonProblem } from './json-check';
import { checkValue, isFieldset, jsonExample, pointerToken, type Schema, schemaType } from './schema-check';

/** How a field of a settings form is edited. */
export type LeafKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

/** A field of a settings form: a property of the schema that is not a fieldset of its own. */
export interface Leaf {
  /** Its JSON pointer in the config or secrets (`/headers`, `/basic/username`). */
  readonly pointer: string;
  /** Its property name. */
  readonly name: string;
  readonly schema: Schema;
  readonly kind: LeafKind;
}

/** The text typed in each field, by pointer: `''` is a field left empty (nothing set). */
export type Drafts = Readonly<Record<string, string>>;

function kindOf(schema: Schema): LeafKind {
  if (schema.enum) return 'enum';
  const type = schemaType(schema);
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : 'json';
}

/** The fields of `schema`, fieldsets (objects with named properties) walked into. */
export function leavesOf(schema: Schema, pointer = ''): Leaf[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, child]) => {
    const at = `${pointer}/${pointerToken(name)}`;
    return isFieldset(child)
      ? leavesOf(child, at)
      : [{ pointer: at, name, schema: child, kind: kindOf(child) }];
  });
}

function tokens(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value at `pointer` in `value`, if any. */
export function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const token of tokens(pointer)) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** `value` with `pointer` set to `next` (objects made on the way), or removed when `next` is undefined. */
function setAt(value: Record<string, unknown>, pointer: string, next: unknown): void {
  const path = tokens(pointer);
  const last = path.pop() as string;
  let node = value;
  for (const token of path) {
    const child = node[token];
    if (child === null || typeof child !== 'object' || Array.isArray(child)) {
      if (next === undefined) return;
      node[token] = {};
    }
    node = node[token] as Record<string, unknown>;
  }
  if (next === undefined) delete node[last];
  else node[last] = next;
}

/** The text a field starts from for its stored `value`. */
export function draftOf(leaf: Leaf, value: unknown): string {
  if (value === undefined) return '';
  if (leaf.kind === 'enum' || leaf.kind === 'boolean') return JSON.stringify(value);
  if (leaf.kind === 'json') return JSON.stringify(value, null, 2);
  return typeof value === 'string' ? value : String(value);
}

/** The drafts of every field of `schema` for the stored `values` (`{}`: every field empty). */
export function draftsOf(schema: Schema, values: Record<string, unknown>): Drafts {
  return Object.fromEntries(
    leavesOf(schema).map((leaf) => [leaf.pointer, draftOf(leaf, valueAt(values, leaf.pointer))]),
  );
}

const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** What a field's text stands for: its value (undefined: nothing set), or why it stands for none. */
export function readDraft(leaf: Leaf, draft: string): { value?: unknown; problem?: string } {
  if (leaf.kind === 'string') return draft === '' ? {} : { value: draft };
  if (leaf.kind === 'enum' || leaf.kind === 'boolean')
    return draft === '' ? {} : { value: JSON.parse(draft) };
  const text = draft.trim();
  if (text === '') return {};
  if (leaf.kind === 'number' || leaf.kind === 'integer') {
    if (!NUMBER.test(text)) return { problem: `${leaf.name} is not a number: digits only, e.g. 5000` };
    const value = Number(text);
    if (leaf.kind === 'integer' && !Number.isInteger(value))
      return { problem: `${leaf.name} must be a whole number` };
    return { value };
  }
  const checked = checkJson(text);
  if (checked.ok) return { value: checked.value };
  const example = jsonExample(leaf.schema, leaf.name);
  const hint = checked.error.javascriptLike && example ? ` In JSON it is written like ${example}` : '';
  return { problem: `${leaf.name} is not JSON (${describeJsonProblem(checked.error)}).${hint}` };
}

/** The field of `leaves` a problem at `pointer` belongs to: that field, or the field holding it. */
export function leafAt(leaves: readonly Leaf[], pointer: string): Leaf | undefined {
  return (
    leaves.find((leaf) => leaf.pointer === pointer) ??
    leaves.find((leaf) => pointer.startsWith(`${leaf.pointer}/`))
  );
}

/** A schema problem said about its field (`headers: the value at "X-Count" must be a string …`). */
function sayAt(leaf: Leaf, pointer: string, message: string): string {
  if (pointer === leaf.pointer) return `${leaf.name} ${message}`;
  const inside = tokens(pointer.slice(leaf.pointer.length)).join('/');
  return `${leaf.name}: ${JSON.stringify(inside)} ${message}`;
}

/** What saving a settings form would do: the patch, or the problems (by field pointer) that stop it. */
export interface SavePlan {
  /** The JSON Patch to send: empty when nothing changed (then nothing is sent). */
  readonly patch: JsonPatch;
  /** The top-level names the patch changes, for the "saved" line. */
  readonly changed: readonly string[];
  /** Why the form cannot be sent, by the pointer of the field to show it at. */
  readonly problems: ReadonlyMap<string, string>;
  /** Problems no field holds (said under the form). */
  readonly general: readonly string[];
}

/**
 * The plan of saving `drafts` over `initial` (the stored config; `{}` for secrets, which are never
 * read back): every field read, the values that changed checked against `schema`, and the JSON
 * Patch of the top-level properties that changed (`add` with the whole property, `remove` for a
 * config property emptied). Secrets are write-only: only fields typed in are sent, each replacing
 * its whole top-level secret.
 *
 * @example
 * ```ts
 * const plan = planSave(schema, config, drafts, false);
 * if (plan.problems.size === 0 && plan.patch.length > 0) await onSave(plan.patch);
 * ```
 */
export function planSave(
  schema: Schema,
  initial: Record<string, unknown>,
  drafts: Drafts,
  secret: boolean,
): SavePlan {
  const leaves = leavesOf(schema);
  const problems = new Map<string, string>();
  const next: Record<string, unknown> = secret ? {} : structuredClone(initial);
  for (const leaf of leaves) {
    const read = readDraft(leaf, drafts[leaf.pointer] ?? '');
    if (read.problem) problems.set(leaf.pointer, read.problem);
    else if (read.value !== undefined || !secret) setAt(next, leaf.pointer, read.value);
  }
  const changed = Object.keys(schema.properties ?? {}).filter(
    (name) =>
      (secret ? next[name] !== undefined : JSON.stringify(next[name]) !== JSON.stringify(initial[name])) &&
      !leaves.some((leaf) => problems.has(leaf.pointer) && tokens(leaf.pointer)[0] === name),
  );
  const general: string[] = [];
  for (const name of changed) {
    const property = schema.properties?.[name] as Schema;
    const pointer = `/${pointerToken(name)}`;
    const found =
      next[name] === undefined
        ? schema.required?.includes(name)
          ? [{ pointer, message: 'is required: it cannot be emptied' }]
          : []
        : checkValue(property, next[name], pointer);
    for (const raw of found) {
      // A secret is sent whole: a part left empty is not kept from the stored one.
      const problem =
        secret && raw.message === 'is required' && raw.pointer !== pointer
          ? { ...raw, message: `is required: ${name} is replaced as a whole when saved` }
          : raw;
      const leaf = leafAt(leaves, problem.pointer);
      if (!leaf) general.push(`${name}: ${problem.message}`);
      else if (!problems.has(leaf.pointer))
        problems.set(leaf.pointer, sayAt(leaf, problem.pointer, problem.message));
    }
  }
  if (problems.size > 0 || general.length > 0) return { patch: [], changed: [], problems, general };
  const patch: JsonPatch = changed.map((name) =>
    next[name] === undefined
      ? { op: 'remove', path: `/${pointerToken(name)}` }
      : { op: 'add', path: `/${pointerToken(name)}`, value: next[name] },
  );
  return { patch, changed, problems, general };
}

/**
 * Which of the secrets at `pointer` are set, from the pointers `GET …/secrets` answers (leaves:
 * `/headers/Authorization` for a stored header map): undefined when none is, `[]` when `pointer`
 * itself holds the value, else the names stored below it (`['Authorization']`).
 */
export function presentBelow(present: readonly string[], pointer: string): string[] | undefined {
  if (present.includes(pointer)) return [];
  const below = present.filter((item) => item.startsWith(`${pointer}/`));
  if (below.length === 0) return undefined;
  return below.map((item) => tokens(item.slice(pointer.length)).join('/'));
}
