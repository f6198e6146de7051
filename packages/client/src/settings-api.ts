import type {
  AnswerOf,
  ConfigResponse,
  JsonPatch,
  ParamsOf,
  SchemaResponse,
  SecretsPresenceResponse,
  SecretsUpdatedResponse,
  settingsRoutes,
} from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';
import type { RouteCaller } from './route-call';

/**
 * Config and secrets of one kind of owner: `/modules/:moduleId/…` or `/services/:serviceId/…`.
 * Both groups of the client share these methods.
 */
export interface SettingsApi {
  /** `GET …/:id/config`. */
  getConfig(id: string, options?: RequestOptions): Promise<ConfigResponse>;
  /** `PATCH …/:id/config` with a JSON Patch. */
  patchConfig(id: string, patch: JsonPatch, options?: RequestOptions): Promise<ConfigResponse>;
  /** `GET …/:id/secrets`: which secrets are set, never their values. */
  getSecrets(id: string, options?: RequestOptions): Promise<SecretsPresenceResponse>;
  /** `PATCH …/:id/secrets` with a JSON Patch. */
  patchSecrets(id: string, patch: JsonPatch, options?: RequestOptions): Promise<SecretsUpdatedResponse>;
  /** `GET …/:id/config/schema`. */
  configSchema(id: string, options?: RequestOptions): Promise<SchemaResponse>;
  /** `GET …/:id/secrets/schema`. */
  secretsSchema(id: string, options?: RequestOptions): Promise<SchemaResponse>;
}

/** The settings routes of one kind of owner whose id parameter is `Id` (`moduleId`, `serviceId`). */
type SettingsRoutes<Id extends string> = ReturnType<typeof settingsRoutes<string, Id>>;

/**
 * Build the settings methods of one kind of owner from its routes (`API_ROUTES.modules` or
 * `API_ROUTES.services`) and the name of its id parameter.
 *
 * @example
 * ```ts
 * const settings = createSettingsApi(call, API_ROUTES.services, 'serviceId');
 * await settings.patchConfig('github', [{ op: 'add', path: '/baseUrl', value: 'https://x' }]);
 * ```
 */
export function createSettingsApi<Id extends string>(
  callRoute: RouteCaller,
  routes: SettingsRoutes<Id>,
  id: Id,
): SettingsApi {
  const params = (value: string) => ({ [id]: value }) as ParamsOf<SettingsRoutes<Id>['getConfig']>;
  // Every settings route takes the one id parameter: what the caller's input type says once `Id`
  // is known (`moduleId` or `serviceId`).
  const call = callRoute as <R extends SettingsRoutes<Id>[keyof SettingsRoutes<Id>]>(
    route: R,
    input: { readonly params: ParamsOf<SettingsRoutes<Id>['getConfig']>; readonly body?: JsonPatch },
    options?: RequestOptions,
  ) => Promise<AnswerOf<R>>;
  return {
    getConfig: (owner, options) => call(routes.getConfig, { params: params(owner) }, options),
    patchConfig: (owner, patch, options) =>
      call(routes.patchConfig, { params: params(owner), body: patch }, options),
    getSecrets: (owner, options) => call(routes.getSecrets, { params: params(owner) }, options),
    patchSecrets: (owner, patch, options) =>
      call(routes.patchSecrets, { params: params(owner), body: patch }, options),
    configSchema: (owner, options) => call(routes.configSchema, { params: params(owner) }, options),
    secretsSchema: (owner, options) => call(routes.secretsSchema, { params: params(owner) }, options),
  };
}
