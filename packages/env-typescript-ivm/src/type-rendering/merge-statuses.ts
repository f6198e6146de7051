import type { JSONSchema } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';

/** The `const` of an option's `properties.status`, and the option's JSON without it. */
function statusOf(option: unknown): { status: unknown; rest: string } | undefined {
  if (!isPlainObject(option) || !isPlainObject(option.properties)) return undefined;
  const status = option.properties.status;
  if (!isPlainObject(status) || !('const' in status) || Object.keys(status).length !== 1) return undefined;
  const { status: _, ...properties } = option.properties;
  return { status: status.const, rest: JSON.stringify({ ...option, properties }) };
}

/**
 * A result schema whose `oneOf`/`anyOf` options differ only in their `status` constant has them
 * merged into one option with `status: { enum: [...] }` (GitHub's 400, 403, 404 and 410 all
 * answering `basic-error`): the same type, declared once. Anything else is returned as it is.
 */
export function mergeStatuses(schema: JSONSchema): JSONSchema {
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options) || options.length < 2) continue;
    const groups = new Map<string, { option: Record<string, unknown>; statuses: unknown[] }>();
    const merged: unknown[] = [];
    let grouped = false;
    for (const option of options) {
      const found = statusOf(option);
      if (!found) {
        merged.push(option);
        continue;
      }
      const group = groups.get(found.rest);
      if (group) {
        group.statuses.push(found.status);
        grouped = true;
        continue;
      }
      const entry = { option: option as Record<string, unknown>, statuses: [found.status] };
      groups.set(found.rest, entry);
      merged.push(entry);
    }
    if (!grouped) return schema;
    return {
      ...schema,
      [key]: merged.map((item) => {
        if (!isPlainObject(item) || !('statuses' in item)) return item;
        const { option, statuses } = item as { option: Record<string, unknown>; statuses: unknown[] };
        if (statuses.length === 1) return option;
        const properties = option.properties as Record<string, unknown>;
        return { ...option, properties: { ...properties, status: { enum: statuses } } };
      }),
    };
  }
  return schema;
}
