// RFC 9110 §5.1 token, and field values as node accepts them (no CR, LF, NUL or other controls
// but tab; nothing beyond U+00FF). Checked here so a bad value is a clear error of the call, not
// node's ERR_INVALID_CHAR from deep inside the transport.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Throw, naming the header (never its value: it may be a secret), when a name or value cannot be sent. */
export function assertValidHeaders(headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new Error(`header name '${name}' is not a valid HTTP header name`);
    if (INVALID_VALUE.test(value)) {
      throw new Error(
        `header '${name}' has a value that cannot be sent (CR, LF, other control characters or characters beyond U+00FF)`,
      );
    }
  }
}
