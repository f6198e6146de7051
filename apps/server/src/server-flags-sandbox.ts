import { integerFlag } from './flag-spec';

/**
 * The settings of the `typescript-ivm` environment's sandbox pool that the server offers as
 * flags (the defaults of its module config: a value stored in the module's config wins). Part of
 * `SERVER_SETTINGS`.
 */
export const SANDBOX_SETTINGS = {
  warmSandboxes: integerFlag({
    flag: 'warm-sandboxes',
    env: 'CYRNEL_WARM_SANDBOXES',
    help: 'sandbox processes forked at start, before any process runs (at most the pool size); the others fork when work comes (≈ 0.1 s each)',
    details: '0 = none until the first process; the `typescript-ivm` config `warmSandboxes`',
    default: undefined,
    shownDefault: 'the pool size',
    min: 0,
    max: 256,
  }),
} as const;
