import type { TransportResponse } from './http-transport';
import { isJsonMediaType, isTextMediaType } from './media-types';

/** What `invoke` returns. */
export interface ToolResult {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decode the body: `null` when empty, parsed JSON for JSON media types (text when it does not parse),
 * a string for text, `{ base64, contentType }` for anything else. Without a Content-Type, valid UTF-8
 * is returned as text.
 */
export function decodeResponse(response: TransportResponse): ToolResult {
  const { status, headers, body: bytes } = response;
  const contentType = headers['content-type'] ?? '';
  let body: unknown = null;
  if (bytes.length > 0) {
    if (isJsonMediaType(contentType)) {
      const text = bytes.toString('utf8');
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    } else if (isTextMediaType(contentType)) {
      body = bytes.toString('utf8');
    } else if (contentType === '') {
      try {
        body = UTF8.decode(bytes);
      } catch {
        body = { base64: bytes.toString('base64'), contentType: 'application/octet-stream' };
      }
    } else {
      body = { base64: bytes.toString('base64'), contentType };
    }
  }
  return { status, headers, body };
}
