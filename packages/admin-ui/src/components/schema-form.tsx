import { CyrnelHttpError } from '@cyrnel/client';
import type { JsonPatch } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  description?: string;
  title?: string;
  default?: unknown;
  writeOnly?: boolean;
};

type Value = unknown;

function typeOf(schema: Schema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  if (type) return type;
  if (schema.properties) return 'object';
  if (schema.enum) return 'enum';
  return 'json';
}

/** The server's validation messages by JSON pointer (`details[].path`, with or without a leading field). */
function fieldErrors(error: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (error instanceof CyrnelHttpError) {
    const details = Array.isArray(error.details)
      ? (error.details as { path?: unknown; message?: unknown }[])
      : [];
    for (const detail of details) {
      if (typeof detail.path !== 'string' || typeof detail.message !== 'string') continue;
      const path = detail.path.replace(/^(config|secrets)/, '').replace(/^\/?/, '/');
      map.set(path, detail.message);
    }
  }
  return map;
}

interface FieldProps {
  readonly schema: Schema;
  readonly pointer: string;
  readonly value: Value;
  readonly onChange: (value: Value) => void;
  readonly errors: Map<string, string>;
  readonly secret: boolean;
  readonly isSet?: boolean;
}

function Field({ schema, pointer, value, onChange, errors, secret, isSet }: FieldProps) {
  const id = `field${pointer.replace(/[^A-Za-z0-9]/g, '-')}`;
  const name = pointer.split('/').pop() ?? '';
  const type = typeOf(schema);
  const error = errors.get(pointer);
  const label = (
    <label for={id}>
      {schema.title ?? name}
      {secret ? isSet ? <span class="pill on"> set</span> : <span class="pill off"> not set</span> : null}
    </label>
  );
  const help = schema.description ? <small>{schema.description}</small> : null;
  const message = error ? (
    <span class="error" role="alert">
      {error}
    </span>
  ) : null;
  if (type === 'object' && schema.properties) {
    const object = (value && typeof value === 'object' ? value : {}) as Record<string, Value>;
    return (
      <fieldset>
        <legend>{schema.title ?? name}</legend>
        {Object.entries(schema.properties).map(([key, child]) => (
          <Field
            key={key}
            schema={child}
            pointer={`${pointer}/${key}`}
            value={object[key]}
            onChange={(next) => onChange({ ...object, [key]: next })}
            errors={errors}
            secret={secret}
          />
        ))}
        {message}
      </fieldset>
    );
  }
  if (schema.enum) {
    return (
      <div>
        {label}
        <select
          id={id}
          value={value === undefined ? '' : JSON.stringify(value)}
          onChange={(e) => {
            const raw = (e.target as HTMLSelectElement).value;
            onChange(raw === '' ? undefined : JSON.parse(raw));
          }}
        >
          <option value="">(unset)</option>
          {schema.enum.map((option) => (
            <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
              {String(option)}
            </option>
          ))}
        </select>
        {help}
        {message}
      </div>
    );
  }
  if (type === 'boolean') {
    return (
      <div>
        <label for={id}>
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
          />{' '}
          {schema.title ?? name}
        </label>
        {help}
        {message}
      </div>
    );
  }
  if (type === 'number' || type === 'integer') {
    return (
      <div>
        {label}
        <input
          id={id}
          type="number"
          step={type === 'integer' ? 1 : 'any'}
          value={typeof value === 'number' ? String(value) : ''}
          onInput={(e) => {
            const raw = (e.target as HTMLInputElement).value;
            onChange(raw === '' ? undefined : Number(raw));
          }}
        />
        {help}
        {message}
      </div>
    );
  }
  if (type === 'string') {
    return (
      <div>
        {label}
        <input
          id={id}
          type={secret || schema.writeOnly ? 'password' : 'text'}
          autocomplete="off"
          value={typeof value === 'string' ? value : ''}
          onInput={(e) => {
            const raw = (e.target as HTMLInputElement).value;
            onChange(raw === '' ? undefined : raw);
          }}
        />
        {help}
        {message}
      </div>
    );
  }
  // Arrays and anything else: JSON, checked when saved.
  return (
    <div>
      {label}
      <textarea
        id={id}
        class="code"
        rows={4}
        value={value === undefined ? '' : JSON.stringify(value, null, 2)}
        onInput={(e) => {
          const raw = (e.target as HTMLTextAreaElement).value;
          try {
            onChange(raw.trim() === '' ? undefined : JSON.parse(raw));
          } catch {
            // Kept as typed until it is JSON.
          }
        }}
      />
      {help}
      {message}
    </div>
  );
}

/** What a settings form saves through. */
export interface SettingsTarget {
  getConfig(): Promise<Record<string, unknown>>;
  patchConfig(patch: JsonPatch): Promise<unknown>;
  getSecretsPresent(): Promise<string[]>;
  patchSecrets(patch: JsonPatch): Promise<unknown>;
}

/**
 * A form generated from a JSON Schema object (strings, numbers, booleans, enums, nested objects;
 * anything else as JSON), saved as a JSON Patch of the fields that changed. Secrets are
 * write-only: the form shows which are set, never their values, and sends only what was typed.
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
  const [value, setValue] = useState<Record<string, unknown>>(initial);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
  const properties = schema.properties ?? {};
  if (Object.keys(properties).length === 0) return <p class="empty">No {title.toLowerCase()}.</p>;
  const errors = fieldErrors(error);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const patch: JsonPatch = [];
    for (const key of Object.keys(properties)) {
      const next = value[key];
      const before = initial[key];
      if (next === undefined && before !== undefined && !secret)
        patch.push({ op: 'remove', path: `/${key}` });
      else if (next !== undefined && JSON.stringify(next) !== JSON.stringify(before))
        patch.push({ op: 'add', path: `/${key}`, value: next });
    }
    try {
      await onSave(patch);
      setError(undefined);
      setSaved(true);
      if (secret) setValue({});
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <form onSubmit={submit} aria-label={title}>
      {Object.entries(properties).map(([key, child]) => (
        <Field
          key={key}
          schema={child}
          pointer={`/${key}`}
          value={value[key]}
          onChange={(next) => setValue({ ...value, [key]: next })}
          errors={errors}
          secret={secret}
          isSet={present?.includes(`/${key}`) ?? false}
        />
      ))}
      <div class="row">
        <button type="submit">Save {title.toLowerCase()}</button>
        {saved ? <span class="pill on">saved</span> : null}
      </div>
      {error && errors.size === 0 ? (
        <p class="error" role="alert">
          {error instanceof CyrnelHttpError ? `${error.message} (${error.reason})` : String(error)}
        </p>
      ) : null}
    </form>
  );
}
