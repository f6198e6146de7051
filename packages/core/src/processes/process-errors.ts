import type { ErrorReason, ProcessEvent } from '@cyrnel/sdk/api';

/** The error recorded on processes a stopped host left unfinished. */
export const INTERRUPTED_ERROR = 'interrupted: the host stopped before the process finished';
/** The error recorded on processes ended by a kill. */
export const KILLED_ERROR = 'canceled by a kill request';
/** The error recorded on processes ended because the API key that created them was deleted. */
export const KEY_REVOKED_ERROR = 'canceled: the API key that created the process was deleted';

/** Why a run is killed: a kill request, or its API key deleted. */
export type KillReason = 'process_killed' | 'key_revoked';

/** The recorded error and reason of a kill for `reason` (any other reason is a plain kill). */
export function killEnd(reason: ErrorReason | null | undefined): {
  readonly error: string;
  readonly errorReason: KillReason;
} {
  return reason === 'key_revoked'
    ? { error: KEY_REVOKED_ERROR, errorReason: 'key_revoked' }
    : { error: KILLED_ERROR, errorReason: 'process_killed' };
}
/** The error recorded (exit `failed`) on processes still live when the shutdown grace period ended. */
export const SHUTDOWN_ERROR = 'interrupted: the host shut down before the process finished';
/** The error of the `exit` event that ends the subscriptions of a never-run process when it is deleted. */
export const DELETED_ERROR = 'the process was deleted before it ran';
/** The `exit` event of a run followed on another host whose owner stopped before it ended. */
export const INTERRUPTED_EXIT: ProcessEvent = {
  type: 'exit',
  data: { exitState: 'failed', error: INTERRUPTED_ERROR, errorReason: 'process_interrupted' },
};
