import type { ModuleLogger } from '@cyrnel/sdk';
import type { HostSignals } from './host-signals';

/** What a `process` signal says: a run that changed (`id`) or a kill asked of its host (`kill`). */
export type ProcessAnnouncement = { readonly id: number } | { readonly kill: number };

/** What the process manager tells the other hosts (hints: nothing is lost when one goes missing). */
export interface ProcessAnnouncer {
  /** Tell the other hosts on `topic` (a lost signal is found by their polls, so a failure is only logged). */
  publish(topic: 'queue' | 'process', payload: string): void;
  /** Tell the other hosts that a run changed or that its owner should kill it. */
  announce(message: ProcessAnnouncement): void;
}

/** Create the announcer of a process manager; without signals it says nothing. */
export function createProcessAnnouncer(
  signals: HostSignals | undefined,
  logger: ModuleLogger,
): ProcessAnnouncer {
  const publish = (topic: 'queue' | 'process', payload: string): void => {
    signals
      ?.publish(topic, payload)
      .catch((error: unknown) => logger.debug('process: a signal failed', { error: String(error) }));
  };
  return { publish, announce: (message) => publish('process', JSON.stringify(message)) };
}

/** A signal's payload as JSON, or undefined when it is not JSON. */
export function parseJson(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

/** A `process` signal: a run that changed (`id`) or a kill asked of its host (`kill`). */
export function parseProcessSignal(value: unknown): { id?: number; kill?: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, kill } = value as { id?: unknown; kill?: unknown };
  return {
    ...(Number.isSafeInteger(id) ? { id: id as number } : {}),
    ...(Number.isSafeInteger(kill) ? { kill: kill as number } : {}),
  };
}
