import { typescriptIvmModule } from './typescript-ivm-module';

export { configSchema, type ResolvedConfig, resolveConfig, secretsSchema } from './config';
export { exampleValue } from './example-value';
export {
  createIsolateRunner,
  type HostCallKind,
  type IsolateRunner,
  type IsolateRunnerOptions,
  type RunJob,
  type RunnerHooks,
  type RunResult,
} from './isolate-runner';
export { createRenderer, type Renderer, type RendererOptions } from './renderer';
export { generateRuntimeDocs } from './runtime-docs';
export { MAX_SCHEMA_TYPE_LENGTH, type RenderSchemaOptions, renderSchemaType } from './schema-type';
export { generateToolDocs, toolPath } from './tool-docs';
export { renderToolSignature } from './tool-signature';
export { type TranspileResult, transpile } from './transpile';
export { generateTypes, SCHEMAS_NAMESPACE } from './types-declaration';
export {
  createTypescriptEnvironment,
  resolveChildPath,
  type TypescriptEnvironmentOptions,
} from './typescript-environment';
export { instantiate, manifest, typescriptIvmModule } from './typescript-ivm-module';

export default typescriptIvmModule;
