import type { ResolvedTools, ToolDocsInput, ToolName, TypeDiagnostic } from '@cyrnel/sdk';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { cyrnelError, isCyrnelError } from '../errors';
import { errorMessage } from '../scoped-logger';
import type { Callable } from '../tools/callable';
import type { SharedSchemasCache } from '../tools/shared-schemas-cache';
import type { EnvironmentProvider } from './environment-provider';

/** Tools one check may ask declarations for: a program's worth, not a catalog. */
const MAX_NAMES = 1000;

/** Options of {@link createTypeCheck}. */
export interface TypeCheckOptions {
  readonly environments: Pick<EnvironmentProvider, 'active'>;
  readonly catalog: Pick<CatalogStorage, 'getService' | 'getTool'>;
  /** The services' shared schemas, parsed once per definition. */
  readonly sharedSchemas: SharedSchemasCache;
  /** Which services and tools can be called here now. */
  readonly callable: Callable;
}

/**
 * Type-check a program with the active environment (`EnvironmentModule.checkTypes`) without
 * running it; resolves with its errors (empty: it type-checks).
 */
export type TypeCheck = (code: string) => Promise<TypeDiagnostic[]>;

/**
 * Create the host's type check: the active environment checks the code against the declarations
 * of the tools it names, which the host resolves here to what can be called now (the others are
 * left out, so calling them is the check's error, not a refusal). 503 `module_unavailable`
 * without an environment that checks; the environment's own refusals (code too large, past its
 * time or memory bounds) are kept; any other failure is a 502 `upstream_failed`.
 *
 * @example
 * ```ts
 * const typeCheck = createTypeCheck({ environments, catalog, sharedSchemas, callable });
 * await typeCheck('await cyrnel.services.shop.tools.nope.invoke({})'); // [{ line: 1, code: 2339, … }]
 * ```
 */
export function createTypeCheck(options: TypeCheckOptions): TypeCheck {
  const resolve = (names: readonly ToolName[]) => resolveTools(options, names);
  return async (code) => {
    const environment = options.environments.active();
    if (!environment) throw cyrnelError('module_unavailable', 'no environment is active');
    const checkTypes = environment.checkTypes?.bind(environment);
    if (!checkTypes)
      throw cyrnelError(
        'module_unavailable',
        'the active environment cannot type-check code (no checkTypes)',
      );
    try {
      return await checkTypes(code, { resolve });
    } catch (error) {
      if (isCyrnelError(error)) throw error;
      throw cyrnelError(
        'upstream_failed',
        `the environment failed to type-check the code: ${errorMessage(error)}`,
      );
    }
  };
}

/** The named tools that can be called now, with their services' shared schemas, and the named services that can. */
async function resolveTools(options: TypeCheckOptions, names: readonly ToolName[]): Promise<ResolvedTools> {
  const { catalog, callable, sharedSchemas } = options;
  const byService = new Map<string, Set<string>>();
  for (const name of Array.isArray(names) ? names.slice(0, MAX_NAMES) : []) {
    const { serviceId, toolId } = (name ?? {}) as Partial<ToolName>;
    if (typeof serviceId !== 'string' || typeof toolId !== 'string') continue;
    const tools = byService.get(serviceId) ?? new Set<string>();
    tools.add(toolId);
    byService.set(serviceId, tools);
  }
  const tools: ToolDocsInput[] = [];
  const services: string[] = [];
  for (const [serviceId, toolIds] of byService) {
    const service = await catalog.getService(serviceId);
    if (!service || !callable.service(service)) continue;
    services.push(serviceId);
    const schemas = await sharedSchemas.get(serviceId, service.hash);
    for (const toolId of toolIds) {
      const row = await catalog.getTool(serviceId, toolId);
      if (!row || !callable.tool(serviceId, row)) continue;
      tools.push({
        serviceId,
        toolId,
        description: row.description,
        inputSchema: row.inputSchema,
        outputSchema: row.outputSchema,
        ...(schemas ? { schemas } : {}),
      });
    }
  }
  return { tools, services };
}
