import type { JSX } from 'preact';
import { isFieldset, jsonExample, pointerToken, type Schema } from './schema-check';
import { type Drafts, type Leaf, leavesOf, presentBelow } from './settings-plan';

/** What every field of a settings form shares. */
export interface FieldsContext {
  /** Starts every element id of the form (`config`, `secrets`): two forms on a page never share one. */
  readonly idPrefix: string;
  readonly drafts: Drafts;
  /** The problems shown, by field pointer. */
  readonly problems: ReadonlyMap<string, string>;
  /** A secrets form: write-only fields that say whether they are set. */
  readonly secret: boolean;
  /** The secrets set, as the pointers of their values (`/headers/Authorization`). */
  readonly present: readonly string[];
  onDraft(pointer: string, text: string): void;
}

/** The element id of the field at `pointer` in a form whose ids start with `prefix`. */
export function fieldId(prefix: string, pointer: string): string {
  return `${prefix}${pointer.replace(/[^A-Za-z0-9_-]/g, (char) => (char === '/' ? '-' : `_${char.charCodeAt(0)}`))}`;
}

/** "set" / "not set" for a secret, with the names stored below it (a header map's header names). */
function SetPill({ names }: { names: string[] | undefined }) {
  if (names === undefined) return <span class="pill off"> not set</span>;
  return (
    <>
      <span class="pill on"> set</span>
      {names.length > 0 ? <span class="muted"> ({names.join(', ')})</span> : null}
    </>
  );
}

/** One field: its label (and for a secret whether it is set), input, help and problem. */
function LeafField({ leaf, context }: { leaf: Leaf; context: FieldsContext }) {
  const { schema, pointer, name, kind } = leaf;
  const id = fieldId(context.idPrefix, pointer);
  const draft = context.drafts[pointer] ?? '';
  const problem = context.problems.get(pointer);
  const stored = context.secret ? presentBelow(context.present, pointer) : undefined;
  const example = kind === 'json' ? jsonExample(schema, name) : undefined;
  const helpText = [
    schema.description,
    // The description's own example, when it has one, is enough.
    example && !schema.description?.includes(example) ? `In JSON, for example: ${example}` : undefined,
    context.secret && stored !== undefined && kind === 'json'
      ? `Saving replaces all of the stored ${name}.`
      : undefined,
  ]
    .filter((line): line is string => Boolean(line))
    .map((line) => (/[.!?]$/.test(line) ? line : `${line}.`));
  const described = [helpText.length > 0 ? `${id}-help` : '', problem ? `${id}-problem` : '']
    .filter(Boolean)
    .join(' ');
  const common = {
    id,
    'aria-invalid': problem ? ('true' as const) : undefined,
    'aria-describedby': described || undefined,
  };
  const set = (text: string) => context.onDraft(pointer, text);
  const label = schema.title ?? name;
  const labelLine = (
    <label for={id}>
      {label}
      {context.secret ? <SetPill names={stored} /> : null}
    </label>
  );
  let input: JSX.Element;
  if (kind === 'boolean') {
    input = (
      <input
        {...common}
        type="checkbox"
        checked={draft === 'true'}
        onChange={(event) => set((event.target as HTMLInputElement).checked ? 'true' : 'false')}
      />
    );
  } else if (kind === 'enum') {
    input = (
      <select {...common} value={draft} onChange={(event) => set((event.target as HTMLSelectElement).value)}>
        <option value="">(unset)</option>
        {(schema.enum ?? []).map((option) => (
          <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'json') {
    input = (
      <textarea
        {...common}
        class="code small"
        rows={4}
        spellcheck={false}
        autocomplete="off"
        value={draft}
        onInput={(event) => set((event.target as HTMLTextAreaElement).value)}
      />
    );
  } else {
    const numeric = kind === 'number' || kind === 'integer';
    input = (
      <input
        {...common}
        type={context.secret || schema.writeOnly ? 'password' : 'text'}
        inputMode={numeric ? (kind === 'integer' ? 'numeric' : 'decimal') : undefined}
        class={numeric ? 'narrow' : undefined}
        autocomplete="off"
        value={draft}
        onInput={(event) => set((event.target as HTMLInputElement).value)}
      />
    );
  }
  return (
    <div class="field" data-pointer={pointer}>
      {kind === 'boolean' ? (
        <label for={id}>
          {input} {label}
          {context.secret ? <SetPill names={stored} /> : null}
        </label>
      ) : (
        <>
          {labelLine}
          {input}
        </>
      )}
      {helpText.length > 0 ? (
        <small id={`${id}-help`} class="help">
          {helpText.join(' ')}
        </small>
      ) : null}
      {problem ? (
        <p id={`${id}-problem`} class="error field-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The fields of `schema` below `pointer`: an object with named properties as a fieldset of its own,
 * every other property one field (strings, numbers, booleans, enums; anything else typed as JSON).
 */
export function SchemaFields({
  schema,
  pointer = '',
  context,
}: {
  schema: Schema;
  pointer?: string;
  context: FieldsContext;
}) {
  const leaves = new Map(leavesOf(schema, pointer).map((leaf) => [leaf.pointer, leaf]));
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, child]) => {
        const at = `${pointer}/${pointerToken(name)}`;
        if (isFieldset(child)) {
          return (
            <fieldset key={at}>
              <legend>{child.title ?? name}</legend>
              {child.description ? <small class="help">{child.description}</small> : null}
              <SchemaFields schema={child} pointer={at} context={context} />
            </fieldset>
          );
        }
        const leaf = leaves.get(at);
        return leaf ? <LeafField key={at} leaf={leaf} context={context} /> : null;
      })}
    </>
  );
}
