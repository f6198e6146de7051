export {
  type ApprovalStorageContractOptions,
  newApproval,
  runApprovalStorageContract,
} from './approval-storage-contract';
export { newService, newTool } from './catalog-fixtures';
export { type CatalogStorageContractOptions, runCatalogStorageContract } from './catalog-storage-contract';
export {
  type KeyStorageContractOptions,
  type KeyStoragesUnderTest,
  runKeyStorageContract,
} from './key-storage-contract';
export { newProcess } from './new-process';
export {
  newKey,
  newPrincipal,
  type PrincipalStorageContractOptions,
  runPrincipalStorageContract,
} from './principal-storage-contract';
export {
  type ProcessStorageContractOptions,
  runProcessStorageContract,
  type StorageUnderTest,
} from './process-storage-contract';
export {
  createScriptEnvironment,
  type ScriptEnvironment,
  type ScriptEnvironmentOptions,
} from './script-environment';
export { createMapToolGateway, createTestEnvironments, type TestEnvironments } from './test-host';
export {
  HANGS,
  runningOf,
  type TestManager,
  type TestManagerOptions,
  trackTestManagers,
} from './test-manager';
