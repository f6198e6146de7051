import type { NewProcess } from '../index';

/** The time the contract's records are made at. */
export const AT = '2026-01-01T00:00:00.000Z';

/** A process as the manager inserts it, with `fields` over the defaults. */
export function newProcess(fields: Partial<NewProcess> = {}): NewProcess {
  return {
    ref: null,
    keyId: null,
    code: 'cyrnel.output({ ok: true })',
    state: 'idle',
    timeoutMs: null,
    envConfig: {},
    createdAt: AT,
    ...fields,
  };
}
