import { ConfigError } from './server-config';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i;

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * Refuse to expose an unauthenticated API (SPEC §6, issue 7): a non-loopback bind needs an
 * API key unless the operator explicitly says it is insecure.
 */
export function assertSafeBind(host: string, apiKey: string | undefined, insecure: boolean): void {
  if (isLoopbackHost(host) || (apiKey !== undefined && apiKey !== '') || insecure) return;
  throw new ConfigError(
    `refusing to bind ${host} without an API key: set --api-key / CYRNEL_API_KEY, or --insecure / CYRNEL_INSECURE=true`,
  );
}
