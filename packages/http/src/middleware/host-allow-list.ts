import { isIP } from 'node:net';
import { cyrnelError } from '@cyrnel/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';

/** Options of {@link hostAllowList}. */
export interface HostAllowListOptions {
  /**
   * DNS names accepted in `Host` besides IP literals and loopback names: exact names, `.example.com`
   * for the domain and every subdomain, or `*` for any host.
   */
  readonly allowedHosts?: readonly string[];
}

/**
 * Refuse requests whose `Host` is a DNS name the operator did not list (403 `forbidden`).
 * DNS rebinding points an attacker's name at this server so a web page on that name can read
 * and write the API as its own origin; it needs a DNS name, so IP literals (`127.0.0.1`,
 * `[::1]`) and loopback names (`localhost`, `*.localhost`, which browsers resolve to loopback
 * themselves) are always accepted, and any other name only when listed. A request without a
 * `Host` (HTTP/1.0) cannot come from a browser and passes.
 */
export function hostAllowList(options: HostAllowListOptions = {}): MiddlewareHandler<AppEnv> {
  const entries = (options.allowedHosts ?? []).map(normalise);
  const any = entries.includes('*');
  const exact = new Set(entries.filter((entry) => !entry.startsWith('.')));
  const suffixes = entries.filter((entry) => entry.startsWith('.'));
  const allowed = (name: string) =>
    any ||
    exact.has(name) ||
    suffixes.some((suffix) => name.endsWith(suffix) || name === suffix.slice(1)) ||
    name === 'localhost' ||
    name.endsWith('.localhost');
  return async (c, next) => {
    const header = c.req.header('host');
    if (header === undefined) return next();
    const name = hostName(header);
    if (name !== undefined && (isIP(name) !== 0 || allowed(name))) return next();
    const shown = name !== undefined && /^[a-z0-9.-]{1,253}$/.test(name) ? `"${name}"` : 'of this request';
    throw cyrnelError(
      'forbidden',
      `host ${shown} is not allowed: DNS names other than localhost must be listed in --allowed-hosts (CYRNEL_ALLOWED_HOSTS) to protect against DNS rebinding`,
    );
  };
}

/** The name or address of a `Host` header without its port, lower-cased; undefined when malformed. */
export function hostName(header: string): string | undefined {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    const rest = value.slice(end + 1);
    if (end < 0 || (rest !== '' && !/^:\d{1,5}$/.test(rest))) return undefined;
    return value.slice(1, end);
  }
  const colon = value.indexOf(':');
  if (colon >= 0 && !/^:\d{1,5}$/.test(value.slice(colon))) return undefined;
  const name = normalise(colon < 0 ? value : value.slice(0, colon));
  return name === '' ? undefined : name;
}

function normalise(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}
