import type { ToolAnnotations, ToolLabel, ToolPolicy } from '@cyrnel/sdk';
import type { ServicePolicy } from '@cyrnel/sdk/api';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { keepBounded } from '../catalog/revision-cache';
import { cyrnelError } from '../errors';
import { requireIdentifier } from '../validation/input';
import { type DefaultPolicy, servicePolicy } from './policy-input';
import { type RuledPolicy, toolLabels, toolPolicy } from './policy-rules';

/** What the policies say of one tool (before any key's policy and any process's history). */
export interface ToolRules {
  readonly annotations: ToolAnnotations;
  readonly labels: readonly ToolLabel[];
  /** Its own setting in the service policy, or null. */
  readonly own: ToolPolicy | null;
  readonly effective: RuledPolicy;
  /** What the data-flow rule does to this service's egress calls. */
  readonly dataFlow: 'ask' | 'block';
}

/** The policies of the catalog's services, cached per catalog revision. */
export interface PolicyBook {
  /** The server's default (`--default-policy`). */
  readonly server: DefaultPolicy;
  /** The rules of a tool when they are cached for the current revision (the hot path of a call). */
  peek(serviceId: string, toolId: string): ToolRules | null | undefined;
  /** The rules of a tool; null when the service or tool does not exist. */
  rules(serviceId: string, toolId: string): Promise<ToolRules | null>;
  /** The rules of a tool from a row the caller already read (lists). */
  rulesOf(serviceId: string, toolId: string, annotations: ToolAnnotations): Promise<ToolRules>;
  /** `GET /services/:serviceId/policy` (404 `service_not_found`). */
  get(serviceId: unknown): Promise<ServicePolicy>;
  /** `PUT /services/:serviceId/policy`: checked, stored, answered as stored. */
  set(serviceId: unknown, body: unknown, at: string): Promise<ServicePolicy>;
}

/** Options of {@link createPolicyBook}. */
export interface PolicyBookOptions {
  /** The watched catalog port: its writes bump `revision`. */
  readonly catalog: CatalogStorage;
  readonly revision: () => number;
  readonly server: DefaultPolicy;
}

interface CachedService {
  readonly revision: number;
  readonly policy: ServicePolicy;
  /** Tool rules by id, null for a service that does not exist. */
  readonly tools: Map<string, ToolRules> | null;
}

/**
 * The policy book: every tool's effective policy and labels, computed from the service policies
 * and the server default and cached per catalog revision and service, so an `allow` decision on a
 * call is a few map lookups. A program may name any service id, so the book keeps at most 10,000
 * services with ids up to 256 characters.
 *
 * @example
 * ```ts
 * const book = createPolicyBook({ catalog, revision: watched.revision, server: DEFAULT_POLICY });
 * (await book.rules('github', 'repos_delete'))?.effective.policy; // 'ask'
 * ```
 */
export function createPolicyBook(options: PolicyBookOptions): PolicyBook {
  const { catalog, revision, server } = options;
  const cache = new Map<string, CachedService>();
  const loading = new Map<string, Promise<CachedService>>();

  const build = (toolId: string, annotations: ToolAnnotations, policy: ServicePolicy): ToolRules => {
    const own = policy.tools && Object.hasOwn(policy.tools, toolId) ? (policy.tools[toolId] ?? null) : null;
    return {
      annotations,
      labels: toolLabels(toolId, annotations, policy),
      own,
      effective: toolPolicy(toolId, annotations, policy, server),
      dataFlow: policy.dataFlow ?? 'ask',
    };
  };

  const load = (serviceId: string): Promise<CachedService> => {
    const current = cache.get(serviceId);
    const at = revision();
    if (current && current.revision === at) return Promise.resolve(current);
    const pending = loading.get(serviceId);
    if (pending) return pending;
    const promise = (async () => {
      const policy = await catalog.getServicePolicy(serviceId);
      let entry: CachedService;
      if (policy === undefined) entry = { revision: at, policy: {}, tools: null };
      else {
        const rows = await catalog.listTools({ serviceId });
        const tools = new Map(rows.map((row) => [row.id, build(row.id, row.annotations, policy)]));
        entry = { revision: at, policy, tools };
      }
      // A write during the read leaves a revision past `at`: the next look reads again. Ids come
      // from programs too (a plan names thousands of unknown services): bounded in length and count.
      keepBounded(cache, serviceId, entry);
      return entry;
    })().finally(() => loading.delete(serviceId));
    loading.set(serviceId, promise);
    return promise;
  };

  const existing = async (serviceId: unknown): Promise<{ id: string; entry: CachedService }> => {
    const id = requireIdentifier(serviceId, 'serviceId');
    const entry = await load(id);
    if (!entry.tools) throw cyrnelError('service_not_found', `service ${id} not found`);
    return { id, entry };
  };

  return {
    server,
    peek(serviceId, toolId) {
      const entry = cache.get(serviceId);
      if (!entry || entry.revision !== revision()) return undefined;
      return entry.tools?.get(toolId) ?? null;
    },
    async rules(serviceId, toolId) {
      return (await load(serviceId)).tools?.get(toolId) ?? null;
    },
    async rulesOf(serviceId, toolId, annotations) {
      const entry = await load(serviceId);
      return entry.tools?.get(toolId) ?? build(toolId, annotations, entry.policy);
    },
    async get(serviceId) {
      return structuredClone((await existing(serviceId)).entry.policy);
    },
    async set(serviceId, body, at) {
      const { id, entry } = await existing(serviceId);
      const policy = servicePolicy(body ?? {}, (toolId) => entry.tools?.has(toolId) ?? false);
      if (!(await catalog.setServicePolicy(id, policy, at)))
        throw cyrnelError('service_not_found', `service ${id} not found`);
      return structuredClone(policy);
    },
  };
}
