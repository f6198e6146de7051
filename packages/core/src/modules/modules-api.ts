import { MODULE_TYPES } from '@cyrnel/sdk';
import type { ModuleDetail, ModuleRecord } from '@cyrnel/sdk/api';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import type { ModulesApi } from '../host/host-api';
import { requireJsonPatch } from '../json/json-patch';
import type { ModuleInstaller } from '../registries/module-installer';
import {
  optionalBoolean,
  optionalOneOf,
  optionalString,
  queryObject,
  requireBoolean,
  requireModuleId,
} from '../validation/input';
import type { ModuleRegistry } from './module-registry';

function toRecord(detail: ModuleDetail): ModuleRecord {
  const { configSchema: _config, secretsSchema: _secrets, ...record } = detail;
  return record;
}

/** The modules API over the registry, validating every client-passable input. */
export function createModulesApi(registry: ModuleRegistry, installer: ModuleInstaller): ModulesApi {
  return {
    async list(rawQuery) {
      const query = queryObject(rawQuery);
      const limit = pageLimit(query.limit);
      const type = optionalOneOf(query.type, MODULE_TYPES, 'type');
      const enabled = optionalBoolean(query.enabled, 'enabled');
      const isBuiltin = optionalBoolean(query.isBuiltin, 'isBuiltin');
      const text = optionalString(query.query, 'query')?.toLowerCase();
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1)[0];
      const rows = (await registry.details()).filter(
        (module) =>
          (type === undefined || module.type === type) &&
          (enabled === undefined || module.enabled === enabled) &&
          (isBuiltin === undefined || module.isBuiltin === isBuiltin) &&
          (!text ||
            [module.id, module.name, module.description].some((field) =>
              field.toLowerCase().includes(text),
            )) &&
          (after === undefined || module.id > after),
      );
      return toPage(rows.slice(0, limit + 1), limit, (module) => [module.id], toRecord);
    },
    get: async (id) => registry.detail(requireModuleId(id)),
    setEnabled: async (id, enabled) =>
      registry.setEnabled(requireModuleId(id), requireBoolean(enabled, 'enabled')),
    reload: () => registry.reload(),
    getConfig: async (id) => registry.getConfig(requireModuleId(id)),
    // The patch first: its shape is wrong whatever the module (the answer a front end gets without any lookup).
    patchConfig: async (id, patch) => {
      const valid = requireJsonPatch(patch);
      return registry.patchConfig(requireModuleId(id), valid);
    },
    getSecretsPresent: async (id) => registry.getSecretsPresent(requireModuleId(id)),
    patchSecrets: async (id, patch) => {
      const valid = requireJsonPatch(patch);
      return registry.patchSecrets(requireModuleId(id), valid);
    },
    install: (input) => installer.install(input),
    update: (id) => installer.update(id),
    configure: (id, patch) => installer.configure(id, patch),
  };
}
