export {
  type AdapterContractFixture,
  type AdapterContractOptions,
  runAdapterContract,
  stateOf,
} from './adapter-contract';
export {
  createRecordingBindings,
  type EnvironmentContractOptions,
  type EnvironmentPrograms,
  type RecordedExecution,
  runEnvironmentContract,
} from './environment-contract';
