/**
 * Whether a browser origin is one of `allowedOrigins` (`https://app.example.com` as browsers
 * serialise it; `*` allows any): what `--allowed-origins` lists, for the cross-site guard and for
 * the CORS answers of route groups alike.
 *
 * @example
 * ```ts
 * const allowed = originAllowList(['https://ui.example.com']);
 * allowed('https://ui.example.com:443'); // true
 * ```
 */
export function originAllowList(allowedOrigins: readonly string[]): (origin: string) => boolean {
  const any = allowedOrigins.includes('*');
  const listed = new Set(allowedOrigins.filter((entry) => entry !== '*').map(serialiseOrigin));
  return (origin) => any || listed.has(serialiseOrigin(origin));
}

/** `scheme://host[:port]` as browsers serialise origins; `null` for anything unparseable. */
export function serialiseOrigin(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : 'null';
  } catch {
    return 'null';
  }
}
