import { ref } from '../record-schemas';
import type { RegistryListing, RegistrySummary } from '../registries';
import { defineRoute, jsonAnswer } from '../route';
import { DOWNLOAD_REASONS } from '../route-reasons';

/** Reading every configured registry's metadata now. */
const READ = [...DOWNLOAD_REASONS, 'invalid_registry'] as const;

/** `/registries`: the configured registries and what they offer, read when asked. */
export const REGISTRY_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/registries',
    role: 'admin',
    summary: 'The configured registries',
    params: {},
    answer: jsonAnswer<{ items: RegistrySummary[] }>(ref('Registries')),
    // A registry that cannot be read says so in its `error`.
    reasons: [],
  }),
  services: defineRoute({
    method: 'GET',
    path: '/registries/services',
    role: 'admin',
    summary: 'Every service entry of every registry',
    params: {},
    answer: jsonAnswer<{ items: RegistryListing[] }>(ref('Registries')),
    reasons: READ,
  }),
  modules: defineRoute({
    method: 'GET',
    path: '/registries/modules',
    role: 'admin',
    summary: 'Every module entry of every registry',
    params: {},
    answer: jsonAnswer<{ items: RegistryListing[] }>(ref('Registries')),
    reasons: READ,
  }),
};
