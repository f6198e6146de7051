import { typescriptIvmModule } from './typescript-ivm-module';

export { configSchema, secretsSchema } from './config';
export {
  createIsolateRunner,
  type HostCallKind,
  type IsolateRunner,
  type IsolateRunnerOptions,
  type RunJob,
  type RunnerHooks,
  type RunResult,
} from './isolate-runner';
export { generateToolDocs } from './tool-docs';
export { type TranspileResult, transpile } from './transpile';
export { generateTypes } from './types-declaration';
export { createTypescriptEnvironment, type TypescriptEnvironmentOptions } from './typescript-environment';
export { instantiate, manifest, typescriptIvmModule } from './typescript-ivm-module';

export default typescriptIvmModule;
