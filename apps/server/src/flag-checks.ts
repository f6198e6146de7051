import { isIP } from 'node:net';

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens, the last one not all digits (so `300.1.1.1` is no name). */
export function isHostName(value: string): boolean {
  const labels = value.split('.');
  return (
    value.length <= 253 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) ?? '')
  );
}

/** An IP address, `[::1]` unwrapped, or `undefined` for anything else. */
export function bareIp(value: string): string | undefined {
  const bare = /^\[.*\]$/.test(value) ? value.slice(1, -1) : value;
  return isIP(bare) === 0 ? undefined : bare;
}

/** A host name or IP address, or `.domain` for a domain and its subdomains. */
export function isHostPattern(value: string): boolean {
  const name = value.startsWith('.') ? value.slice(1) : value;
  return bareIp(name) !== undefined || isHostName(name.replace(/\.$/, ''));
}

/** `http(s)://host[:port]` as browsers send it in `Origin`: no path, query, fragment or user. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      !/^[a-z]+:\/\/[^/]*\/./i.test(value) &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === ''
    );
  } catch {
    return false;
  }
}

/** True for base64 text decoding to exactly 32 bytes: an AES-256 key for the secrets at rest. */
export function isSecretsKey(value: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

/** An absolute `http:` or `https:` URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
