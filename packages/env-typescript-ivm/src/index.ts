import { typescriptIvmModule } from './host/typescript-ivm-module';

export {
  createIsolateRunner,
  type IsolateRunner,
  type IsolateRunnerOptions,
  type RunnerHooks,
} from './child/isolate-runner';
export { configSchema, secretsSchema } from './host/config';
export {
  createTypescriptEnvironment,
  type TypescriptEnvironmentOptions,
} from './host/typescript-environment';
export { instantiate, manifest, typescriptIvmModule } from './host/typescript-ivm-module';
export type { HostCallKind } from './shared/host-call-kind';
export type { RunJob, RunResult } from './shared/run-job';
export { type TranspileResult, transpile } from './shared/transpile';
export { findToolCalls } from './tool-calls/find-tool-calls';
export { generateToolDocs } from './type-rendering/tool-docs';
export { generateTypes } from './type-rendering/types-declaration';

export default typescriptIvmModule;
