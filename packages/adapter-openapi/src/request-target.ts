import { encodeComponent } from './serialize-parameter';

// `.`, `..` and their percent-encoded forms: WHATWG URL parsing (and most servers) treat all as dot segments.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
// What may stand in a path as is (RFC 3986 pchar, '/' and '%' of existing escapes); the rest is encoded.
const NOT_PATH_CHAR = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu;

/** What {@link requestTarget} needs. */
export interface RequestTargetInput {
  /** The base URL's path (already normalised by `URL`), e.g. `/v1/`. */
  readonly basePath: string;
  /** The operation's path template, e.g. `/files/{name}`. */
  readonly template: string;
  /** The template with its parameters substituted (values percent-encoded). */
  readonly path: string;
  /** `?query` or empty. */
  readonly search: string;
}

/**
 * The request target (path and query) exactly as sent. Built by hand rather than read from a `URL`,
 * because URL parsing removes dot segments, percent-encoded ones too: a path parameter `..` would
 * otherwise reach a different endpoint (one an operator may not have enabled). A segment that a
 * parameter value made into `.` or `..` gets its dots encoded (`%2E%2E`), so the server sees one
 * ordinary segment; a dot segment the document itself wrote is left alone.
 */
export function requestTarget(input: RequestTargetInput): string {
  const { basePath, template, path, search } = input;
  const templateSegments = template.split('/');
  const segments = path
    .split('/')
    .map((segment, i) =>
      DOT_SEGMENT.test(segment) && segment !== templateSegments[i]
        ? segment.replace(/\.|%2e/gi, '%2E')
        : segment,
    );
  const own = segments.join('/').replace(NOT_PATH_CHAR, encodeComponent);
  return `${basePath.replace(/\/+$/, '')}${own}${search}`;
}
