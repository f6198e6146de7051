import type { SchemaChecker } from '@cyrnel/core';
import { type AdapterModule, type ServiceDefinition, withSharedSchemas } from '@cyrnel/sdk';
import { instantiate } from '../src/index';
import type { Echo } from './echo-server';
import { expectValid } from './schema-check';

/** An adapter with one installed, hydrated service. */
export interface Installed {
  readonly adapter: AdapterModule;
  readonly definition: ServiceDefinition;
  /** Validate the parameters against the tool's inputSchema (as the host would), then invoke. */
  call(
    toolId: string,
    parameters: Record<string, unknown>,
  ): Promise<{ status: number; headers: Record<string, string>; body: unknown }>;
  /** Like `call`, returning the echo the server saw. */
  echo(toolId: string, parameters: Record<string, unknown>): Promise<Echo>;
}

/**
 * Generate, hydrate (config defaults applied like the host does) and return helpers; config,
 * secrets and every call's parameters are validated by `checker`, the host's schema checker.
 */
export async function install(
  checker: SchemaChecker,
  document: unknown,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = {},
): Promise<Installed> {
  const adapter = instantiate();
  await adapter.setup({ config: {}, secrets: {}, logger: console as never });
  const definition = await adapter.generateDefinition(
    typeof document === 'string' ? document : JSON.stringify(document),
  );
  const defaults: Record<string, unknown> = {};
  const props = (definition.configSchema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [key, prop] of Object.entries(props))
    if (prop.default !== undefined) defaults[key] = prop.default;
  const fullConfig = { ...defaults, ...config };
  await expectValid(checker, definition.configSchema, fullConfig);
  await expectValid(checker, definition.secretsSchema, secrets);
  await adapter.hydrateService({
    id: 'svc',
    adapterDomain: definition.adapterDomain,
    tools: Object.fromEntries(definition.tools.map((t) => [t.id, { adapterDomain: t.adapterDomain }])),
    config: fullConfig,
    secrets,
  });
  const call: Installed['call'] = async (toolId, parameters) => {
    const tool = definition.tools.find((t) => t.id === toolId);
    if (!tool) throw new Error(`test: no tool ${toolId} in ${definition.tools.map((t) => t.id).join(', ')}`);
    await expectValid(checker, withSharedSchemas(tool.inputSchema, definition.schemas), parameters);
    return (await adapter.invoke({ serviceId: 'svc', toolId, parameters })) as Awaited<
      ReturnType<Installed['call']>
    >;
  };
  return {
    adapter,
    definition,
    call,
    echo: async (toolId, parameters) => (await call(toolId, parameters)).body as Echo,
  };
}
