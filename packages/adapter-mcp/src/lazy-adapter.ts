import {
  type AdapterAuthorization,
  type AdapterModule,
  cyrnelError,
  type ModuleSetupContext,
} from '@cyrnel/sdk';
import { signsInWithOAuth } from './oauth/oauth-spec';

/**
 * The `mcp` adapter: one MCP server per service, its tools as the service's tools. Its
 * implementation (`mcp-adapter.ts`, with the MCP SDK: tens of megabytes of a server's memory) is
 * loaded by the first call that needs a server (an install, a hydration, a call, a sign-in), so a
 * server without MCP services never holds it. Until then `setup` only keeps its context, which the
 * loaded adapter is set up with. A failed load (a broken install) fails that call with 503
 * `module_unavailable` and is tried again by the next one.
 *
 * @example
 * ```ts
 * const adapter = createMcpAdapter();
 * await adapter.setup({ config: { allowedCommands: ['npx'], connectTimeoutMs: 60_000 }, secrets: {}, logger });
 * const definition = await adapter.generateDefinition(
 *   '{"transport":"stdio","command":"npx","args":["-y","@modelcontextprotocol/server-memory"]}',
 * );
 * ```
 */
export function createMcpAdapter(): AdapterModule {
  /** The context of the last `setup` (none after `teardown`). */
  let context: ModuleSetupContext | undefined;
  let loading: Promise<AdapterModule> | undefined;
  /** The context the loaded adapter was set up with, and that setup. */
  let applied: { readonly context: ModuleSetupContext; readonly done: Promise<void> } | undefined;

  const load = (): Promise<AdapterModule> => {
    loading ??= import('./mcp-adapter').then(
      ({ createLoadedMcpAdapter }) => createLoadedMcpAdapter(),
      (error: unknown) => {
        loading = undefined;
        throw cyrnelError(
          'module_unavailable',
          `the mcp adapter could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
        );
      },
    );
    return loading;
  };
  /** The loaded adapter, set up with the current context. */
  const adapter = async (): Promise<AdapterModule> => {
    const loaded = await load();
    if (context && applied?.context !== context) applied = { context, done: loaded.setup(context) };
    await applied?.done;
    return loaded;
  };
  const authorizationOf = async (): Promise<AdapterAuthorization> => {
    const { authorization } = await adapter();
    if (!authorization) throw cyrnelError('module_unavailable', 'the mcp adapter signs nobody in');
    return authorization;
  };

  return {
    async setup(setupContext) {
      context = setupContext;
      // Loaded already: set it up now, so a failing setup fails here as it would have.
      if (loading) await adapter();
    },
    async teardown() {
      context = undefined;
      const loaded = await loading?.catch(() => undefined);
      applied = undefined;
      await loaded?.teardown();
    },
    authorization: {
      // Read from the definition alone: asking does not load the implementation.
      signsIn: signsInWithOAuth,
      begin: async (state, request) => (await authorizationOf()).begin(state, request),
      finish: async (state, query) => (await authorizationOf()).finish(state, query),
    },
    generateDefinition: async (text, generateContext) =>
      (await adapter()).generateDefinition(text, generateContext),
    refreshDefinition: async (state) => {
      const loaded = await adapter();
      if (!loaded.refreshDefinition)
        throw cyrnelError('refresh_not_supported', 'the mcp adapter cannot list tools again');
      return loaded.refreshDefinition(state);
    },
    hydrateService: async (state) => (await adapter()).hydrateService(state),
    async dehydrateService(id) {
      // Never loaded (or failed to): it holds no service.
      const loaded = await loading?.catch(() => undefined);
      await loaded?.dehydrateService(id);
    },
    invoke: async (input) => (await adapter()).invoke(input),
  };
}
