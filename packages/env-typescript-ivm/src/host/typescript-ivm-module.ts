import type { BuiltinModule, EnvironmentModule, ModuleInfo } from '@cyrnel/sdk';
import { version } from '../../package.json';
import { configSchema, secretsSchema } from './config';
import { createTypescriptEnvironment } from './typescript-environment';

/** Manifest of the built-in `typescript-ivm` environment. */
export const manifest: ModuleInfo = {
  id: 'typescript-ivm',
  name: 'TypeScript (isolated-vm)',
  description: 'Runs submitted TypeScript in isolated-vm sandboxes held by supervised child processes',
  type: 'environment',
  version, // from package.json: changesets bumps only that
};

/** Create a fresh, not yet set-up instance (module factory). */
export function instantiate(): EnvironmentModule {
  return createTypescriptEnvironment();
}

/** The module as the host registers it (also the package's default export). */
export const typescriptIvmModule: BuiltinModule<EnvironmentModule> = {
  manifest,
  configSchema,
  secretsSchema,
  instantiate,
};
