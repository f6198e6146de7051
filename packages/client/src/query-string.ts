/** A route's query: an object of scalar values and lists, undefined ones left out. */
export type QueryValues = object;

/**
 * Render `?a=1&b=true` (or an empty string): booleans as `true`/`false`, a list comma separated
 * (an empty one left out, like an undefined value), as the server reads them.
 */
export function queryString(query: QueryValues | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.set(key, value.join(','));
    } else params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
