export type { ProcessHostOptions } from '../several-hosts/process-host-options';
export { createMemoryProcessStorage } from './memory-process-storage';
export { DELETED_ERROR, INTERRUPTED_ERROR, KILLED_ERROR, SHUTDOWN_ERROR } from './process-errors';
export type { WaitOptions } from './process-input';
export { DEFAULT_PROCESS_LIMITS, type ProcessLimits } from './process-limits';
export { createProcessManager, type ProcessManager, type ProcessManagerOptions } from './process-manager';
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
