import { CyrnelHttpError } from '@cyrnel/client';
import type { JsonPatch } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';
import { describeError } from './error-line';
import type { Schema } from './schema-check';
import { fieldId, SchemaFields } from './schema-fields';
import { draftsOf, leafAt, leavesOf, planSave } from './settings-plan';

/** The server's validation messages by the field they belong to (`details[].path`, with or without a leading field). */
function serverProblems(schema: Schema, error: unknown): { byField: Map<string, string>; other: string[] } {
  const byField = new Map<string, string>();
  const other: string[] = [];
  if (!(error instanceof CyrnelHttpError) || !Array.isArray(error.details)) return { byField, other };
  const leaves = leavesOf(schema);
  for (const detail of error.details as { path?: unknown; message?: unknown }[]) {
    if (typeof detail.message !== 'string') continue;
    const path =
      typeof detail.path === 'string'
        ? detail.path.replace(/^\/?(config|secrets)/, '').replace(/^\/?/, '/')
        : '';
    const leaf = path ? leafAt(leaves, path) : undefined;
    if (leaf && !byField.has(leaf.pointer)) byField.set(leaf.pointer, `${leaf.name}: ${detail.message}`);
    else other.push(detail.message);
  }
  return { byField, other };
}

/** What the form says under its button: saved (and what), nothing to save, or why not. */
type Outcome =
  | { readonly kind: 'saved'; readonly names: readonly string[] }
  | { readonly kind: 'nothing' }
  | { readonly kind: 'problems'; readonly count: number; readonly general: readonly string[] }
  | { readonly kind: 'refused'; readonly error: unknown };

/**
 * A form generated from a JSON Schema object (strings, numbers, booleans, enums, nested objects;
 * anything else typed as JSON), saved as a JSON Patch of the top-level properties that changed.
 * Every field is checked here before anything is sent (JSON with the line, column and what is
 * wrong; types, bounds, required properties): a problem is said at its field and nothing is sent;
 * a form with nothing changed sends nothing and says so. The server's refusals are shown at their
 * fields too. Secrets are write-only: the form shows which are set (a header map: which headers),
 * never their values, and sends only what was typed, emptied once sent.
 */
export function SchemaForm({
  schema,
  initial,
  secret,
  present,
  onSave,
  title,
}: {
  schema: Schema;
  initial: Record<string, unknown>;
  secret: boolean;
  present?: string[];
  onSave: (patch: JsonPatch) => Promise<void>;
  title: string;
}) {
  const idPrefix = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const [drafts, setDrafts] = useState(() => draftsOf(schema, secret ? {} : initial));
  // Problems show once saving was tried (then as the fields change), not while a person types, nor
  // when a field is left: a message appearing then would move the button being clicked.
  const [tried, setTried] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);
  if (Object.keys(schema.properties ?? {}).length === 0)
    return <p class="empty">No {title.toLowerCase()}.</p>;
  const plan = planSave(schema, secret ? {} : initial, drafts, secret);
  const server = outcome?.kind === 'refused' ? serverProblems(schema, outcome.error) : undefined;
  const shown = new Map<string, string>();
  for (const [pointer, problem] of plan.problems) if (tried) shown.set(pointer, problem);
  for (const [pointer, problem] of server?.byField ?? [])
    if (!shown.has(pointer)) shown.set(pointer, problem);
  const submit = async (event: Event) => {
    event.preventDefault();
    setTried(true);
    if (plan.problems.size > 0 || plan.general.length > 0) {
      setOutcome({ kind: 'problems', count: plan.problems.size, general: plan.general });
      const [first] = plan.problems.keys();
      if (first !== undefined) document.getElementById(fieldId(idPrefix, first))?.focus();
      return;
    }
    if (plan.patch.length === 0) {
      setOutcome({ kind: 'nothing' });
      return;
    }
    setBusy(true);
    try {
      await onSave(plan.patch);
      setOutcome({ kind: 'saved', names: plan.changed });
      setTried(false);
      if (secret) setDrafts(draftsOf(schema, {}));
    } catch (caught) {
      setOutcome({ kind: 'refused', error: caught });
      // Secrets typed are not kept on the page once sent, whatever the answer.
      if (secret) setDrafts(draftsOf(schema, {}));
    } finally {
      setBusy(false);
    }
  };
  const context = {
    idPrefix,
    drafts,
    problems: shown,
    secret,
    present: present ?? [],
    onDraft: (pointer: string, text: string) => {
      setDrafts((before) => ({ ...before, [pointer]: text }));
      if (outcome?.kind !== 'problems') setOutcome(undefined);
    },
  };
  return (
    <form onSubmit={submit} aria-label={title} noValidate>
      <SchemaFields schema={schema} context={context} />
      <div class="row">
        <button type="submit" disabled={busy}>
          Save {title.toLowerCase()}
        </button>
        <span role="status" data-testid={`${idPrefix}-outcome`}>
          {outcome?.kind === 'saved' ? (
            <span class="pill on">saved: {outcome.names.join(', ')}</span>
          ) : outcome?.kind === 'nothing' ? (
            secret ? (
              'Nothing to save: every field is empty (stored secrets are never shown; type one to replace it).'
            ) : (
              'Nothing to save: no field was changed.'
            )
          ) : null}
        </span>
      </div>
      {outcome?.kind === 'problems' && (plan.problems.size > 0 || plan.general.length > 0) ? (
        <div class="error" role="alert">
          Not saved, nothing was sent:{' '}
          {plan.problems.size > 0
            ? `${plan.problems.size === 1 ? 'a field needs' : `${plan.problems.size} fields need`} fixing (said at ${plan.problems.size === 1 ? 'it' : 'each'}).`
            : ''}
          {plan.general.map((line) => (
            <span key={line}> {line}.</span>
          ))}
        </div>
      ) : null}
      {outcome?.kind === 'refused' ? (
        <div class="error" role="alert">
          Not saved: {describeError(outcome.error)}
          {server?.other.map((line) => (
            <span key={line}> {line}.</span>
          ))}
        </div>
      ) : null}
    </form>
  );
}
