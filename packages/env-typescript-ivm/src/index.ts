import { typescriptIvmModule } from './host/typescript-ivm-module';

export {
  createIsolateRunner,
  type HostCallKind,
  type IsolateRunner,
  type IsolateRunnerOptions,
  type RunJob,
  type RunnerHooks,
  type RunResult,
} from './child/isolate-runner';
export { type TranspileResult, transpile } from './child/transpile';
export { configSchema, secretsSchema } from './host/config';
export {
  createTypescriptEnvironment,
  type TypescriptEnvironmentOptions,
} from './host/typescript-environment';
export { instantiate, manifest, typescriptIvmModule } from './host/typescript-ivm-module';
export { generateToolDocs } from './type-rendering/tool-docs';
export { generateTypes } from './type-rendering/types-declaration';

export default typescriptIvmModule;
