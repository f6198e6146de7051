import {
  type AdapterModule,
  type DiscoveredService,
  type DiscoveredTool,
  type InvokeInput,
  isPlainObject,
  jsonText,
  type ToolDescription,
  withSharedSchemas,
} from '@cyrnel/sdk';
import type { CatalogStorage, ToolDetailRow, ToolGateRow } from '../catalog/catalog-storage';
import { revisionCache } from '../catalog/revision-cache';
import { cyrnelError } from '../errors';
import type { EgressGateway } from '../gateway/egress-gateway';
import { withUpstreamStatus } from '../metrics/upstream-status';
import { portableView } from '../modules/portable-view';
import type { SchemaChecker } from '../validation/schema-checker';
import type { Callable } from './callable';
import type { SharedSchemasCache } from './shared-schemas-cache';
import { observedOutputOf } from './tool-docs-input';

/** Options of {@link createToolGateway}. */
export interface ToolGatewayOptions {
  readonly catalog: CatalogStorage;
  /** Validates parameters off the main thread, under a deadline. */
  readonly checker: SchemaChecker;
  /** The services' shared schemas (`ServiceDefinition.schemas`), parsed once per definition. */
  readonly sharedSchemas: SharedSchemasCache;
  /** The active adapter instance of an adapter id. */
  readonly adapter: (adapterId: string) => AdapterModule | undefined;
  /** Which tools and services are callable here: the others are refused and not discovered. */
  readonly callable: Callable;
  /** Where portable adapters' calls are made (off the main thread); absent: the adapter here. */
  readonly egress?: Pick<EgressGateway, 'invoke'>;
  /**
   * A call made here that the upstream refused (HTTP 401) with adapter state `instanceId`, made
   * at `since`: true when its OAuth tokens were refreshed (the call is made once more).
   */
  readonly reauthorize?: (instanceId: string, since: number) => Promise<boolean>;
  /**
   * Whether `adapter` holds service `serviceId` on this host, and how to make it so (bounded;
   * rejects with `service_unavailable`): a service another host enabled a moment ago is enabled
   * in the store before this host has hydrated it, and a call for it hydrates it first instead
   * of failing. Absent: every callable service is taken as held.
   */
  readonly hydration?: {
    readonly held: (serviceId: string, adapter: AdapterModule) => boolean;
    readonly activate: (serviceId: string) => Promise<void>;
  };
  /**
   * Offered every result an adapter here answered (not JSON text from the egress gateway): learns
   * the result shapes of tools without an output schema (`createOutputObserver`). Must return at once.
   */
  readonly observe?: (serviceId: string, toolId: string, result: unknown) => void;
  /**
   * The catalog's revision (grows with every write here and every change heard from another
   * host): a callable tool's flags are read once per revision instead of once per call. Absent:
   * read on every call.
   */
  readonly revision?: () => number;
}

const MAX_DISCOVERED = 100;

/** The invocation gate and discovery, as the `ToolGateway` port. */
export interface ToolGatewayEngine {
  invoke(input: InvokeInput, instanceId?: string): Promise<unknown>;
  discoverServices(query: unknown): Promise<DiscoveredService[]>;
  discoverTools(query: unknown): Promise<DiscoveredTool[]>;
  describeTool(serviceId: string, toolId: string): Promise<ToolDescription>;
}

/** Create the tool gateway. */
export function createToolGateway(options: ToolGatewayOptions): ToolGatewayEngine {
  const { catalog } = options;
  // The checker's workers compile an input schema once per tool and service hash (an update
  // changes the hash); only a worker that lacks it makes the gate read the schema.
  const inputSchemaOf = (serviceId: string, toolId: string) => async () => {
    const tool = await catalog.getTool(serviceId, toolId);
    if (!tool) throw cyrnelError('tool_not_found', `tool ${toolId} not found in service ${serviceId}`);
    return tool.inputSchema;
  };

  const selfContained = async (tool: ToolDetailRow) => {
    const shared = await options.sharedSchemas.get(tool.serviceId, tool.serviceHash);
    const observed = observedOutputOf(tool);
    return {
      inputSchema: withSharedSchemas(tool.inputSchema, shared),
      outputSchema: withSharedSchemas(tool.outputSchema, shared),
      ...(observed ? { observedOutputSchema: observed } : {}),
    };
  };

  // A callable tool's flags, kept per catalog revision: a refusal is read again each time, so a
  // service another host enabled a moment ago is callable here at once; a disable counts from this
  // host's own write, or from the moment it hears another host's (as for the policies).
  const gates = revisionCache<ToolGateRow | undefined>(
    options.revision,
    (row) => row?.enabled === true && row.serviceEnabled,
  );
  const readGate = (serviceId: string, toolId: string) =>
    gates(`${serviceId}\u0000${toolId}`, () => catalog.getToolGate(serviceId, toolId));

  return {
    async invoke(input, instanceId) {
      if (!isPlainObject(input)) throw cyrnelError('invalid_request', 'invoke input must be an object');
      const { serviceId, toolId, parameters = {}, signal } = input as Partial<InvokeInput>;
      if (typeof serviceId !== 'string')
        throw cyrnelError('invalid_request', 'serviceId must be a string', {
          details: [{ path: 'serviceId', message: 'must be a string' }],
        });
      if (typeof toolId !== 'string')
        throw cyrnelError('invalid_request', 'toolId must be a string', {
          details: [{ path: 'toolId', message: 'must be a string' }],
        });
      // The gate, in its order: 404, 409, 503, 400; only then the adapter.
      // At most one small query on the hot path: the tool's flags, its service's flag, adapter and hash.
      const tool = await readGate(serviceId, toolId);
      if (!tool) {
        if (!(await catalog.getService(serviceId)))
          throw cyrnelError('service_not_found', `service ${serviceId} not found`);
        throw cyrnelError('tool_not_found', `tool ${toolId} not found in service ${serviceId}`);
      }
      const refusal = options.callable.refusal(serviceId, toolId, tool);
      if (refusal) throw refusal;
      // Callable: its adapter is active.
      let adapter = options.adapter(tool.adapter) as AdapterModule;
      const { hydration } = options;
      if (hydration && !hydration.held(serviceId, adapter)) {
        await hydration.activate(serviceId);
        adapter = options.adapter(tool.adapter) as AdapterModule;
        if (!adapter || !hydration.held(serviceId, adapter))
          throw cyrnelError('service_unavailable', `service ${serviceId} is not active on this host`);
      }
      if (!isPlainObject(parameters)) {
        throw cyrnelError('invalid_parameters', 'parameters must be an object', {
          details: [{ path: 'parameters', message: 'must be an object' }],
        });
      }
      await options.checker.check({
        field: 'parameters',
        key: `${serviceId}\u0000${toolId}\u0000${tool.serviceHash}`,
        schema: inputSchemaOf(serviceId, toolId),
        schemaName: `the inputSchema of ${serviceId}.${toolId}`,
        value: parameters,
        invalidReason: 'invalid_parameters',
        shared: {
          key: `${serviceId}\u0000${tool.serviceHash}`,
          schemas: async () => (await options.sharedSchemas.get(serviceId, tool.serviceHash)) ?? {},
        },
      });
      // A portable adapter's call leaves through a gateway worker, which parses and bounds its
      // answer: it comes back as JSON text, passed on unparsed. One the worker does not make (not
      // prepared) is made here.
      // The connection's own adapter state (its secrets), or the service's.
      const target = instanceId ?? serviceId;
      if (options.egress && portableView(adapter)) {
        const answer = await options.egress.invoke(
          target,
          toolId,
          parameters,
          signal instanceof AbortSignal ? signal : undefined,
        );
        // The text no longer shows the upstream's status: it is kept beside it, for the metrics.
        if (answer !== undefined) return withUpstreamStatus(jsonText(answer.json), answer.status);
      }
      // The adapter is guarded (module-guard.ts): its deadline, abort signal and error translation.
      const invoke = () =>
        adapter.invoke({
          serviceId: target,
          toolId,
          parameters,
          ...(signal instanceof AbortSignal ? { signal } : {}),
        });
      const since = Date.now();
      let result = await invoke();
      // Refused with OAuth tokens (401): refreshed, then once more (a portable adapter's worker does the same).
      const status = isPlainObject(result) ? result.status : undefined;
      if (status === 401 && (await options.reauthorize?.(target, since))) result = await invoke();
      // Shapes are shown to every principal of the service: learned only from the shared
      // connection's answers, never from a principal's own (whose keys may name its data).
      if (target === serviceId) options.observe?.(serviceId, toolId, result);
      return result;
    },
    async discoverServices(rawQuery) {
      const query = rawQuery === undefined ? {} : rawQuery;
      if (!isPlainObject(query)) throw cyrnelError('invalid_request', 'query must be an object');
      const text = query.query;
      if (text !== undefined && typeof text !== 'string')
        throw cyrnelError('invalid_request', 'query must be a string', {
          details: [{ path: 'query', message: 'must be a string' }],
        });
      const services = await catalog.listServices({ enabled: true, query: text || undefined });
      return services
        .filter((service) => options.callable.service(service))
        .map((service) => ({
          id: service.id,
          name: service.name,
          description: service.description,
          // The service is enabled and its adapter active: its enabled tools are the callable ones.
          toolCount: service.enabledToolCount,
        }));
    },
    async discoverTools(rawQuery) {
      const query = rawQuery === undefined ? {} : rawQuery;
      if (!isPlainObject(query)) throw cyrnelError('invalid_request', 'query must be an object');
      const { query: text, serviceId, limit } = query;
      if (text !== undefined && typeof text !== 'string')
        throw cyrnelError('invalid_request', 'query must be a string', {
          details: [{ path: 'query', message: 'must be a string' }],
        });
      if (serviceId !== undefined && typeof serviceId !== 'string')
        throw cyrnelError('invalid_request', 'serviceId must be a string', {
          details: [{ path: 'serviceId', message: 'must be a string' }],
        });
      if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
        throw cyrnelError('invalid_request', 'limit must be a positive integer', {
          details: [{ path: 'limit', message: 'must be a positive integer' }],
        });
      }
      const ranked = await catalog.searchTools({
        text: text ?? '',
        ...(serviceId === undefined ? {} : { serviceId }),
        ...options.callable.searchScope(),
        limit: Math.min(limit ?? 20, MAX_DISCOVERED),
      });
      return ranked.map((tool) => ({
        serviceId: tool.serviceId,
        toolId: tool.id,
        name: tool.name,
        description: tool.description,
      }));
    },
    async describeTool(serviceId, toolId) {
      const tool =
        typeof serviceId === 'string' && typeof toolId === 'string'
          ? await catalog.getTool(serviceId, toolId)
          : undefined;
      if (!tool || !options.callable.tool(tool.serviceId, tool)) {
        throw cyrnelError('tool_not_found', `tool ${String(serviceId)}.${String(toolId)} not found`);
      }
      return {
        serviceId: tool.serviceId,
        toolId: tool.id,
        name: tool.name,
        description: tool.description,
        // Self-contained: the shared schemas each one reaches become its `$defs`.
        ...(await selfContained(tool)),
      };
    },
  };
}
