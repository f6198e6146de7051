import type { JSONSchema } from '@cyrnel/sdk';
import type { JsonPatch } from '@cyrnel/sdk/api';

/** What the settings handlers call: the settings methods modules and services share. */
export interface SettingsApi {
  get(id: string): Promise<{ readonly configSchema: JSONSchema; readonly secretsSchema: JSONSchema }>;
  getConfig(id: string): Promise<Record<string, unknown>>;
  patchConfig(id: string, patch: JsonPatch): Promise<Record<string, unknown>>;
  getSecretsPresent(id: string): Promise<string[]>;
  patchSecrets(id: string, patch: JsonPatch): Promise<void>;
}

/** What a settings handler reads of its input: the owner's id parameter, and a patch. */
interface Read<P> {
  readonly params: P;
}
interface Patch<P> extends Read<P> {
  readonly body: JsonPatch;
}

/**
 * The handlers of the config and secrets routes of one kind of owner (`settingsRoutes` of
 * `@cyrnel/sdk/api` below `/modules/:moduleId` and `/services/:serviceId`): `GET`/`PATCH config`,
 * `GET`/`PATCH secrets` (which never answers values) and both schemas. Patches are passed on as
 * read: the host checks them. `api` is read per request, like every handler's host.
 *
 * @example
 * ```ts
 * const settings = settingsHandlers(() => host.modules, ({ moduleId }: { moduleId: string }) => moduleId);
 * ```
 */
export function settingsHandlers<P>(api: () => SettingsApi, idOf: (params: P) => string) {
  return {
    getConfig: async ({ params }: Read<P>) => ({ config: await api().getConfig(idOf(params)) }),
    patchConfig: async ({ params, body }: Patch<P>) => ({
      config: await api().patchConfig(idOf(params), body),
    }),
    getSecrets: async ({ params }: Read<P>) => ({
      present: await api().getSecretsPresent(idOf(params)),
    }),
    patchSecrets: async ({ params, body }: Patch<P>) => {
      await api().patchSecrets(idOf(params), body);
      return { updated: true } as const;
    },
    configSchema: async ({ params }: Read<P>) => (await api().get(idOf(params))).configSchema,
    secretsSchema: async ({ params }: Read<P>) => (await api().get(idOf(params))).secretsSchema,
  };
}
