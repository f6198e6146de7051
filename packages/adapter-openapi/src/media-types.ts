import type { BodyKind } from './operation-model';

/** True for JSON media types (`application/json`, `*+json`). */
export function isJsonMediaType(mediaType: string): boolean {
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

/** True for media types `invoke` returns as a string. */
export function isTextMediaType(mediaType: string): boolean {
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type.startsWith('text/') || type.endsWith('+xml') || type === 'application/xml';
}

/** Which encoder a request media type uses. */
export function bodyKindOf(mediaType: string): BodyKind {
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json') || type === '*/*+json') return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.startsWith('multipart/')) return 'multipart';
  if (type.startsWith('text/')) return 'text';
  return 'binary';
}
