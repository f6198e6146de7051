/** A list endpoint's query: an object of scalar values, undefined ones left out. */
export type QueryValues = object;

/** Render `?a=1&b=true` (or an empty string); booleans as `true`/`false` as SPEC §6 expects. */
export function queryString(query: QueryValues | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
