import {
  isPlainObject,
  TOOL_ANNOTATIONS,
  TOOL_LABELS,
  TOOL_POLICIES,
  type ToolAnnotation,
  type ToolLabel,
  type ToolPolicy,
} from '@cyrnel/sdk';
import type { KeyPolicy, KeyScope, ServicePolicy } from '@cyrnel/sdk/api';
import { type CyrnelError, cyrnelError } from '../errors';

function invalid(path: string, message: string): CyrnelError {
  return cyrnelError('invalid_request', `${path} ${message}`, { details: [{ path, message }] });
}

const quoted = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

/** Most entries one policy map may hold (a service with thousands of tools fits). */
const MAX_ENTRIES = 10_000;

function policyValue(value: unknown, path: string): ToolPolicy {
  if (typeof value === 'string' && (TOOL_POLICIES as readonly string[]).includes(value))
    return value as ToolPolicy;
  throw invalid(
    path,
    `is not a policy: ${JSON.stringify(value)?.slice(0, 100)} (one of ${quoted(TOOL_POLICIES)})`,
  );
}

function entries(value: unknown, path: string): [string, unknown][] {
  if (!isPlainObject(value)) throw invalid(path, 'must be an object');
  const list = Object.entries(value);
  if (list.length > MAX_ENTRIES) throw invalid(path, `may hold at most ${MAX_ENTRIES} entries`);
  return list;
}

function policyMap(value: unknown, path: string): Record<string, ToolPolicy> {
  const map: Record<string, ToolPolicy> = Object.create(null);
  for (const [name, entry] of entries(value, path)) map[name] = policyValue(entry, `${path}.${name}`);
  return { ...map };
}

function labelList(value: unknown, path: string): ToolLabel[] {
  if (!Array.isArray(value)) throw invalid(path, `must be an array of labels (${quoted(TOOL_LABELS)})`);
  const labels = new Set<ToolLabel>();
  for (const [index, label] of value.entries()) {
    if (typeof label !== 'string' || !(TOOL_LABELS as readonly string[]).includes(label))
      throw invalid(
        `${path}[${index}]`,
        `is not a label: ${JSON.stringify(label)?.slice(0, 100)} (one of ${quoted(TOOL_LABELS)})`,
      );
    labels.add(label as ToolLabel);
  }
  return TOOL_LABELS.filter((label) => labels.has(label));
}

/**
 * Check a service's policy rules as `PUT /services/:serviceId/policy` receives them: known
 * policies, annotations and labels, and tool ids that `hasTool` knows (400 `invalid_request` or 404
 * `tool_not_found` naming the first that is not). Answers a clean copy.
 *
 * @example
 * ```ts
 * servicePolicy({ default: 'ask', byAnnotation: { readOnly: 'allow' } }, (id) => id === 'issues_list');
 * ```
 */
export function servicePolicy(value: unknown, hasTool: (toolId: string) => boolean): ServicePolicy {
  if (!isPlainObject(value)) throw invalid('policy', 'must be an object');
  const known = ['default', 'byAnnotation', 'tools', 'labels', 'dataFlow'];
  for (const field of Object.keys(value))
    if (!known.includes(field)) throw invalid(field, `is not a field of a service policy (${quoted(known)})`);
  const policy: ServicePolicy = {};
  if (value.default !== undefined) policy.default = policyValue(value.default, 'default');
  if (value.byAnnotation !== undefined) {
    const rules: Partial<Record<ToolAnnotation, ToolPolicy>> = {};
    for (const [name, entry] of entries(value.byAnnotation, 'byAnnotation')) {
      if (!(TOOL_ANNOTATIONS as readonly string[]).includes(name))
        throw invalid(`byAnnotation.${name}`, `is not an annotation (one of ${quoted(TOOL_ANNOTATIONS)})`);
      rules[name as ToolAnnotation] = policyValue(entry, `byAnnotation.${name}`);
    }
    policy.byAnnotation = rules;
  }
  const unknownTool = (toolId: string) => {
    if (!hasTool(toolId))
      throw cyrnelError('tool_not_found', `tool ${toolId.slice(0, 100)} not found in the service`, {
        details: [{ path: `tools.${toolId.slice(0, 100)}`, message: 'no such tool' }],
      });
  };
  if (value.tools !== undefined) {
    policy.tools = policyMap(value.tools, 'tools');
    for (const toolId of Object.keys(policy.tools)) unknownTool(toolId);
  }
  if (value.labels !== undefined) {
    const labels: Record<string, ToolLabel[]> = {};
    for (const [toolId, list] of entries(value.labels, 'labels')) {
      unknownTool(toolId);
      labels[toolId] = labelList(list, `labels.${toolId}`);
    }
    policy.labels = labels;
  }
  if (value.dataFlow !== undefined) {
    if (value.dataFlow !== 'ask' && value.dataFlow !== 'block')
      throw invalid('dataFlow', "must be 'ask' or 'block'");
    policy.dataFlow = value.dataFlow;
  }
  return policy;
}

function idList(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.length > 300))
    throw invalid(path, 'must be an array of ids');
  if (value.length > MAX_ENTRIES) throw invalid(path, `may hold at most ${MAX_ENTRIES} ids`);
  return [...new Set(value as string[])];
}

/** Check an API key's scope (`POST /keys`); null or absent: every tool. */
export function keyScope(value: unknown): KeyScope | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) throw invalid('scope', 'must be an object or null');
  for (const field of Object.keys(value))
    if (field !== 'services' && field !== 'tools')
      throw invalid(`scope.${field}`, "is not a field ('services', 'tools')");
  const scope: KeyScope = {};
  if (value.services !== undefined) scope.services = idList(value.services, 'scope.services');
  if (value.tools !== undefined) {
    scope.tools = idList(value.tools, 'scope.tools');
    for (const id of scope.tools)
      if (!id.includes('.'))
        throw invalid('scope.tools', `${id.slice(0, 100)} is not a qualified tool id (<service>.<tool>)`);
  }
  return scope;
}

/** Check an API key's policy overrides (`POST /keys`); null or absent: none. */
export function keyPolicy(value: unknown): KeyPolicy | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) throw invalid('policy', 'must be an object or null');
  for (const field of Object.keys(value))
    if (!['default', 'services', 'tools'].includes(field))
      throw invalid(`policy.${field}`, "is not a field ('default', 'services', 'tools')");
  const policy: KeyPolicy = {};
  if (value.default !== undefined) policy.default = policyValue(value.default, 'policy.default');
  if (value.services !== undefined) policy.services = policyMap(value.services, 'policy.services');
  if (value.tools !== undefined) {
    policy.tools = policyMap(value.tools, 'policy.tools');
    for (const id of Object.keys(policy.tools))
      if (!id.includes('.'))
        throw invalid('policy.tools', `${id.slice(0, 100)} is not a qualified tool id (<service>.<tool>)`);
  }
  return policy;
}

/** The server's default policy: a default for every tool plus rules by annotation. */
export interface DefaultPolicy {
  readonly default: ToolPolicy;
  readonly byAnnotation: Partial<Record<ToolAnnotation, ToolPolicy>>;
}

/** Out of the box: read-only tools are allowed, every other tool asks. */
export const DEFAULT_POLICY: DefaultPolicy = Object.freeze({
  default: 'ask',
  byAnnotation: Object.freeze({ readOnly: 'allow' }),
});

/**
 * Read `--default-policy`: a policy (`allow`, `ask`, `block`: every tool, no annotation rule), or
 * comma-separated `name=policy` pairs where name is `default` or an annotation.
 *
 * @example
 * ```ts
 * parseDefaultPolicy('default=ask,readOnly=allow,destructive=block');
 * parseDefaultPolicy('allow'); // { default: 'allow', byAnnotation: {} }
 * ```
 */
export function parseDefaultPolicy(text: string): DefaultPolicy {
  const trimmed = text.trim();
  if ((TOOL_POLICIES as readonly string[]).includes(trimmed))
    return { default: trimmed as ToolPolicy, byAnnotation: {} };
  let fallback: ToolPolicy = 'ask';
  const byAnnotation: Partial<Record<ToolAnnotation, ToolPolicy>> = {};
  for (const part of trimmed.split(',')) {
    const [name = '', value = '', ...rest] = part.split('=').map((piece) => piece.trim());
    if (rest.length > 0 || value === '')
      throw invalid('--default-policy', `has a part that is not name=policy: ${part.slice(0, 100)}`);
    const policy = policyValue(value, `--default-policy ${name}`);
    if (name === 'default') fallback = policy;
    else if ((TOOL_ANNOTATIONS as readonly string[]).includes(name))
      byAnnotation[name as ToolAnnotation] = policy;
    else
      throw invalid(
        '--default-policy',
        `names neither 'default' nor an annotation: ${name.slice(0, 100)} (${quoted(TOOL_ANNOTATIONS)})`,
      );
  }
  return { default: fallback, byAnnotation };
}
