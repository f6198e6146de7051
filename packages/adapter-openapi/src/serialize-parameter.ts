import { isPlainObject } from '@cyrnel/sdk';
import type { ParameterPlan } from './operation-model';

// Reserved characters `allowReserved` keeps literal. Not `#`: it would end the query there, cutting off
// the rest of the value and every pair after it (credentials included), so it is always encoded.
const RESERVED_ESCAPES = /%(3A|2F|3F|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g;

/** `encodeURIComponent` that never throws: a lone surrogate becomes U+FFFD, as WHATWG URL does. */
export function encodeComponent(value: string): string {
  return encodeURIComponent(value.toWellFormed());
}

/** RFC 3986 percent-encoding of a component; `allowReserved` keeps reserved characters but `#` literal. */
export function percentEncode(value: string, allowReserved = false): string {
  const encoded = encodeComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return allowReserved ? encoded.replace(RESERVED_ESCAPES, (m) => decodeURIComponent(m)) : encoded;
}

/** The string form of a scalar; objects nested where a style has no notation for them become JSON. */
function scalar(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function contentValue(plan: ParameterPlan, value: unknown): string {
  return typeof value === 'string' && !plan.contentType?.includes('json') ? value : JSON.stringify(value);
}

const DELIMITERS: Record<string, string> = { spaceDelimited: '%20', pipeDelimited: '|', tabDelimited: '%09' };

/**
 * Query pairs (`name=value`, already percent-encoded) per the OpenAPI 3.0.3 style table: form,
 * spaceDelimited, pipeDelimited, deepObject, explode true/false, allowReserved.
 */
export function serializeQuery(plan: ParameterPlan, value: unknown): string[] {
  if (value === undefined) return [];
  const enc = (s: string) => percentEncode(s, plan.allowReserved === true);
  const name = percentEncode(plan.name);
  if (plan.contentType) return [`${name}=${enc(contentValue(plan, value))}`];
  if (Array.isArray(value)) {
    if (plan.explode) return value.map((item) => `${name}=${enc(scalar(item))}`);
    return [`${name}=${value.map((item) => enc(scalar(item))).join(DELIMITERS[plan.style] ?? ',')}`];
  }
  if (isPlainObject(value)) {
    if (plan.style === 'deepObject') return deepObjectPairs(name, value, enc);
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (plan.explode) return entries.map(([k, v]) => `${percentEncode(k)}=${enc(scalar(v))}`);
    const flat = entries.flatMap(([k, v]) => [enc(k), enc(scalar(v))]);
    return [`${name}=${flat.join(DELIMITERS[plan.style] ?? ',')}`];
  }
  return [`${name}=${enc(scalar(value))}`];
}

function deepObjectPairs(
  prefix: string,
  value: Record<string, unknown>,
  enc: (s: string) => string,
): string[] {
  return Object.entries(value).flatMap(([key, item]) => {
    const name = `${prefix}[${percentEncode(key)}]`;
    if (item === undefined) return [];
    if (isPlainObject(item)) return deepObjectPairs(name, item, enc);
    if (Array.isArray(item)) return item.map((v) => `${name}=${enc(scalar(v))}`);
    return [`${name}=${enc(scalar(item))}`];
  });
}

/** A path segment (percent-encoded) per style simple, label or matrix. */
export function serializePath(plan: ParameterPlan, value: unknown): string {
  const enc = (s: string) => percentEncode(s);
  if (plan.contentType) return enc(contentValue(plan, value));
  const { style, explode } = plan;
  const name = enc(plan.name);
  if (Array.isArray(value)) {
    const items = value.map((v) => enc(scalar(v)));
    if (style === 'label') return `.${items.join('.')}`;
    if (style === 'matrix')
      return explode ? items.map((v) => `;${name}=${v}`).join('') : `;${name}=${items.join(',')}`;
    return items.join(',');
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [enc(k), enc(scalar(v))] as const);
    if (style === 'label')
      return explode ? `.${entries.map(([k, v]) => `${k}=${v}`).join('.')}` : `.${entries.flat().join('.')}`;
    if (style === 'matrix')
      return explode
        ? entries.map(([k, v]) => `;${k}=${v}`).join('')
        : `;${name}=${entries.flat().join(',')}`;
    return explode ? entries.map(([k, v]) => `${k}=${v}`).join(',') : entries.flat().join(',');
  }
  const text = enc(scalar(value));
  if (style === 'label') return `.${text}`;
  if (style === 'matrix') return text === '' ? `;${name}` : `;${name}=${text}`;
  return text;
}

/** A header value per style simple (no percent-encoding: headers carry text). */
export function serializeHeader(plan: ParameterPlan, value: unknown): string {
  if (plan.contentType) return contentValue(plan, value);
  if (Array.isArray(value)) return value.map(scalar).join(',');
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return plan.explode
      ? entries.map(([k, v]) => `${k}=${scalar(v)}`).join(',')
      : entries.flatMap(([k, v]) => [k, scalar(v)]).join(',');
  }
  return scalar(value);
}

// RFC 6265 cookie-name is an RFC 9110 token: everything else is percent-encoded. (`%` is a token
// character, so a name the caller percent-encoded itself is sent as is: the credential check reads
// names percent-decoded too.)
const NOT_COOKIE_NAME_CHAR = /[^!#$%&'*+\-.^_`|~0-9A-Za-z]/gu;

function percentByte(char: string): string {
  const encoded = encodeComponent(char);
  return encoded === char ? `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : encoded;
}

/**
 * A cookie name as sent: characters outside the RFC 6265 token (`;`, `=`, `,`, spaces, quotes,
 * brackets, parentheses, controls, non-ASCII) are percent-encoded, so a name cannot end its pair or
 * start another cookie. Token names (`session`, `sid`, `__Host-id`) are unchanged.
 *
 * @example
 * ```ts
 * encodeCookieName('sid'); // 'sid'
 * encodeCookieName('a=1; sid'); // 'a%3D1%3B%20sid'
 * ```
 */
export function encodeCookieName(name: string): string {
  return name.replace(NOT_COOKIE_NAME_CHAR, percentByte);
}

/**
 * Cookie pairs (`name=value`) per style form. Values are percent-encoded (RFC 3986) so `;`, `,`, `=`
 * and spaces survive; names, exploded object keys included, per {@link encodeCookieName}.
 */
export function serializeCookie(plan: ParameterPlan, value: unknown): string[] {
  if (value === undefined) return [];
  const enc = (s: string) => percentEncode(s);
  const name = encodeCookieName(plan.name);
  if (plan.contentType) return [`${name}=${enc(contentValue(plan, value))}`];
  if (Array.isArray(value)) {
    if (plan.explode) return value.map((v) => `${name}=${enc(scalar(v))}`);
    return [`${name}=${value.map((v) => enc(scalar(v))).join(',')}`];
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (plan.explode) return entries.map(([k, v]) => `${encodeCookieName(k)}=${enc(scalar(v))}`);
    return [`${name}=${entries.flatMap(([k, v]) => [enc(k), enc(scalar(v))]).join(',')}`];
  }
  return [`${name}=${enc(scalar(value))}`];
}
