import { ConfigError } from './server-config';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i;

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * Refuse to expose an unauthenticated API (anyone on the network could run code with the
 * operator's credentials): a non-loopback bind needs
 * a key — the `--api-key` bootstrap key or one stored in the database — unless the operator
 * explicitly says it is insecure. A server without any key answers every request as an admin.
 */
export function assertSafeBind(
  host: string,
  apiKey: string | undefined,
  insecure: boolean,
  storedKeys = 0,
): void {
  if (isLoopbackHost(host) || (apiKey !== undefined && apiKey !== '') || storedKeys > 0 || insecure) return;
  throw new ConfigError(
    `refusing to bind ${host} without an API key: a server without keys lets anyone who reaches it ` +
      'do everything, so it only binds loopback. Set --api-key / CYRNEL_API_KEY (a bootstrap admin key), ' +
      'or start on 127.0.0.1 and create a key with POST /keys (stored keys then protect every bind), ' +
      'or pass --insecure / CYRNEL_INSECURE=true',
  );
}
