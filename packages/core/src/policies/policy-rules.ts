import {
  defaultLabels,
  stricterPolicy,
  TOOL_ANNOTATIONS,
  type ToolAnnotation,
  type ToolAnnotations,
  type ToolLabel,
  type ToolPolicy,
} from '@cyrnel/sdk';
import type { KeyPolicy, KeyScope, PolicyRule, ServicePolicy } from '@cyrnel/sdk/api';
import type { DefaultPolicy } from './policy-input';

/** A tool's policy with the rule that gave it. */
export interface RuledPolicy {
  readonly policy: ToolPolicy;
  readonly rule: PolicyRule;
  /** The annotation or key entry that matched. */
  readonly detail?: string;
}

/** The strictest of the rules whose annotation the tool has (`true`), or undefined. */
function byAnnotation(
  rules: Partial<Record<ToolAnnotation, ToolPolicy>> | undefined,
  annotations: ToolAnnotations,
): { policy: ToolPolicy; annotation: ToolAnnotation } | undefined {
  if (!rules) return undefined;
  let found: { policy: ToolPolicy; annotation: ToolAnnotation } | undefined;
  for (const annotation of TOOL_ANNOTATIONS) {
    const policy = rules[annotation];
    if (policy === undefined || annotations[annotation] !== true) continue;
    if (!found || stricterPolicy(found.policy, policy) !== found.policy) found = { policy, annotation };
  }
  return found;
}

/**
 * The effective policy of a tool, before any key's policy: its own setting in the service policy,
 * else the strictest of the service's annotation rules it matches, else the service's default,
 * else the same two steps of the server's default.
 *
 * @example
 * ```ts
 * toolPolicy('repos_delete', { destructive: true }, { byAnnotation: { destructive: 'block' } }, DEFAULT_POLICY);
 * // { policy: 'block', rule: 'service-annotation', detail: 'destructive' }
 * ```
 */
export function toolPolicy(
  toolId: string,
  annotations: ToolAnnotations,
  service: ServicePolicy,
  server: DefaultPolicy,
): RuledPolicy {
  const own = service.tools && Object.hasOwn(service.tools, toolId) ? service.tools[toolId] : undefined;
  if (own) return { policy: own, rule: 'tool' };
  const serviceRule = byAnnotation(service.byAnnotation, annotations);
  if (serviceRule)
    return { policy: serviceRule.policy, rule: 'service-annotation', detail: serviceRule.annotation };
  if (service.default) return { policy: service.default, rule: 'service-default' };
  const serverRule = byAnnotation(server.byAnnotation, annotations);
  if (serverRule)
    return { policy: serverRule.policy, rule: 'server-annotation', detail: serverRule.annotation };
  return { policy: server.default, rule: 'server-default' };
}

/** A tool's data-flow labels: the service policy's, or those its annotations suggest. */
export function toolLabels(
  toolId: string,
  annotations: ToolAnnotations,
  service: ServicePolicy,
): ToolLabel[] {
  const set = service.labels && Object.hasOwn(service.labels, toolId) ? service.labels[toolId] : undefined;
  return set ? [...set] : defaultLabels(annotations);
}

/** Whether a key's scope lets it call the tool at all (no scope: every tool). */
export function inScope(scope: KeyScope | null, serviceId: string, toolId: string): boolean {
  if (!scope) return true;
  return (
    (scope.services?.includes(serviceId) ?? false) ||
    (scope.tools?.includes(`${serviceId}.${toolId}`) ?? false)
  );
}

/** The key's own entry for the tool, the most specific first, or undefined. */
export function keyOverride(
  policy: KeyPolicy | null,
  serviceId: string,
  toolId: string,
): RuledPolicy | undefined {
  if (!policy) return undefined;
  const qualified = `${serviceId}.${toolId}`;
  const tool = policy.tools && Object.hasOwn(policy.tools, qualified) ? policy.tools[qualified] : undefined;
  if (tool) return { policy: tool, rule: 'key', detail: `tools.${qualified}` };
  const service =
    policy.services && Object.hasOwn(policy.services, serviceId) ? policy.services[serviceId] : undefined;
  if (service) return { policy: service, rule: 'key', detail: `services.${serviceId}` };
  if (policy.default) return { policy: policy.default, rule: 'key', detail: 'default' };
  return undefined;
}

/** Whether a process that accumulated `labels` has read both private and untrusted data. */
export function exposed(labels: ReadonlySet<ToolLabel>): boolean {
  return labels.has('private') && labels.has('untrusted');
}
