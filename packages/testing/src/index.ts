export {
  type AdapterContractFixture,
  type AdapterContractOptions,
  runAdapterContract,
  stateOf,
} from './adapter-contract';
export {
  type CatalogStorageContractOptions,
  newService,
  newTool,
  runCatalogStorageContract,
} from './catalog-storage-contract';
export {
  createRecordingBindings,
  type EnvironmentContractOptions,
  type EnvironmentPrograms,
  type RecordedExecution,
  runEnvironmentContract,
} from './environment-contract';
export {
  newProcess,
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
