import { type Expression, type RawBuilder, sql } from 'kysely';

/** Parse a JSON text column into an object (empty object for anything else). */
export function parseObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A boolean as stored: 0 or 1 (portable across SQLite and PostgreSQL integer columns). */
export function flag(value: boolean): number {
  return value ? 1 : 0;
}

/**
 * Case-insensitive substring match, portable: `lower(column) like lower(pattern)` with the
 * LIKE wildcards of the text escaped (SQLite's LIKE is case-insensitive, PostgreSQL's is not).
 */
export function containsText(
  column: Expression<unknown> | RawBuilder<unknown>,
  text: string,
): RawBuilder<boolean> {
  const escaped = text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<boolean>`lower(${column}) like ${`%${escaped}%`} escape '\\'`;
}
