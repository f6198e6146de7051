/** Signals the launcher forwards to the server. */
export type ForwardedSignalName = 'SIGINT' | 'SIGTERM';

/**
 * What the launcher (`cli.ts`) sends the server (`main.ts`) over their IPC channel when it
 * receives a signal. A message rather than a signal: a terminal's Ctrl-C reaches both processes,
 * and the server must tell the launcher's copy from its own to count presses correctly.
 */
export interface ForwardedSignal {
  readonly type: 'cyrnel:signal';
  readonly signal: ForwardedSignalName;
}

/** True for a {@link ForwardedSignal} message. */
export function isForwardedSignal(message: unknown): message is ForwardedSignal {
  if (typeof message !== 'object' || message === null) return false;
  const { type, signal } = message as Record<string, unknown>;
  return type === 'cyrnel:signal' && (signal === 'SIGINT' || signal === 'SIGTERM');
}
