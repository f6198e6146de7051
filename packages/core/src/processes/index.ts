export { createMemoryProcessStorage } from './memory-process-storage';
export type { WaitOptions } from './process-input';
export { DEFAULT_HOST_SLOTS, DEFAULT_PROCESS_LIMITS, type ProcessLimits } from './process-limits';
export {
  createProcessManager,
  DELETED_ERROR,
  INTERRUPTED_ERROR,
  KILLED_ERROR,
  type ProcessHostOptions,
  type ProcessManager,
  type ProcessManagerOptions,
  SHUTDOWN_ERROR,
} from './process-manager';
export type {
  ClaimedProcess,
  HostRecord,
  InterruptedScope,
  NewProcess,
  ProcessChange,
  ProcessResults,
  ProcessStorage,
  ProcessStorageQuery,
} from './process-storage';
export { type ProcessActor, scopeProcesses } from './scope-processes';
export { MAX_REF_LENGTH, MAX_TIMEOUT_MS } from './validate-create-request';
