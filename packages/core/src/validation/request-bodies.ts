import { CREATE_KEY_BODY } from '../keys/key-ring';
import { RUN_PROCESS_BODY } from '../processes/process-input';
import { CREATE_PROCESS_BODY } from '../processes/validate-create-request';
import { MODULE_INSTALL_BODY, MODULE_PATCH_BODY } from '../registries/module-installer';
import { INSTALL_FROM_REGISTRY } from '../registries/service-registries';
import { INSTALL_SERVICE_BODY } from '../services/install-service';
import { UPDATE_SERVICE_BODY } from '../services/update-service';
import { type BodySchema, EMPTY_BODY, ENABLED_BODY } from './body-schema';

/**
 * The request bodies the host validates, by the operation they belong to: the same objects
 * `validateBody` checks, so a description of the API built from them (`@cyrnel/http`'s OpenAPI
 * document) cannot drift from what is enforced.
 *
 * @example
 * ```ts
 * REQUEST_BODIES.createKey; // { name: { type: 'string', required: true, maxLength: 100 }, role: … }
 * ```
 */
export const REQUEST_BODIES = {
  installService: INSTALL_SERVICE_BODY,
  updateService: UPDATE_SERVICE_BODY,
  installFromRegistry: INSTALL_FROM_REGISTRY,
  installModule: MODULE_INSTALL_BODY,
  patchModule: MODULE_PATCH_BODY,
  createProcess: CREATE_PROCESS_BODY,
  runProcess: RUN_PROCESS_BODY,
  createKey: CREATE_KEY_BODY,
  enabled: ENABLED_BODY,
  empty: EMPTY_BODY,
} as const satisfies Record<string, BodySchema>;
