import { cyrnelError } from '@cyrnel/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';

// Methods whose bodies the routes read; GET and HEAD bodies are never looked at.
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// `application/json`, optionally with a UTF-8 charset (RFC 8259 §8.1: JSON is UTF-8).
const JSON_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*(?:"utf-?8"|utf-?8)\s*)?$/i;

/**
 * Accept request bodies only as `application/json` (415 `unsupported_media_type` otherwise).
 * A browser can send `text/plain`, form and multipart bodies to any origin without a CORS
 * preflight; a JSON body needs one, which this server never grants. So on POST, PUT, PATCH and
 * DELETE a `Content-Type` other than JSON is refused even with an empty body, and a body without
 * a `Content-Type` is refused too; an empty request without one (`curl -X POST`) passes.
 */
export function jsonContentType(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!BODY_METHODS.has(c.req.method)) return next();
    const type = c.req.header('content-type');
    if (type === undefined ? hasBody(c.req.raw.headers) : !JSON_TYPE.test(type.trim())) {
      const got =
        type === undefined ? 'no Content-Type' : `Content-Type ${JSON.stringify(type.slice(0, 100))}`;
      throw cyrnelError(
        'unsupported_media_type',
        `request bodies must be application/json (charset utf-8 if any); got ${got}`,
      );
    }
    return next();
  };
}

function hasBody(headers: Headers): boolean {
  const length = headers.get('content-length');
  return headers.has('transfer-encoding') || (length !== null && length.trim() !== '0');
}
