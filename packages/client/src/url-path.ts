/**
 * Tagged template that percent-encodes every interpolated segment, so an id can never
 * smuggle a `/`, `?` or `#` into the route: url`/tools/${serviceId}/${toolId}`.
 */
export function url(strings: TemplateStringsArray, ...segments: ReadonlyArray<string | number>): string {
  let path = strings[0] ?? '';
  segments.forEach((segment, index) => {
    path += encodeURIComponent(String(segment)) + (strings[index + 1] ?? '');
  });
  return path;
}
