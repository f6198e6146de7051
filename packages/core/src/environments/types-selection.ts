import type { TypesSelection } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';

/** Names one selection may carry: a prompt's worth of tools, not a catalog. */
const MAX_NAMES = 1000;

/** A parsed {@link TypesSelection}: which services and tools it names. */
export interface ParsedSelection {
  /** Normalised, sorted, for cache keys. */
  readonly key: string;
  /** The service may have selected tools. */
  reaches(serviceId: string): boolean;
  /** The tool is selected (its whole service, or itself). */
  has(serviceId: string, toolId: string): boolean;
  /** Named services not among `known`. */
  unknownServices(known: readonly string[]): string[];
  /** Named tools (`svc.tool`) not among `found`. */
  unknownTools(found: ReadonlySet<string>): string[];
}

function names(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list) || list.some((name) => typeof name !== 'string'))
    throw cyrnelError('invalid_request', `${field} must be a list of names`, {
      details: [{ path: field, message: 'must be a list of names' }],
    });
  const out = [...new Set((list as string[]).map((name) => name.trim()).filter(Boolean))].sort();
  if (out.length > MAX_NAMES)
    throw cyrnelError('invalid_request', `${field} names more than ${MAX_NAMES}`, {
      details: [{ path: field, message: `at most ${MAX_NAMES} names` }],
    });
  return out;
}

/**
 * Read a selection (hostile: query strings or sandbox values). `services` and `tools` are arrays or
 * comma-separated strings; tools are `<serviceId>.<toolId>`. Undefined when it names nothing: the
 * whole catalog.
 */
export function typesSelection(raw: unknown): ParsedSelection | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw cyrnelError('invalid_request', 'the selection must be an object', {
      details: [{ path: '', message: 'must be an object' }],
    });
  const input = raw as Record<string, unknown>;
  const services = names(input.services, 'services');
  const tools = names(input.tools, 'tools');
  if (services.length === 0 && tools.length === 0) return undefined;
  const malformed = tools.filter((name) => !/^[^.]+\.[^.]+$/.test(name));
  if (malformed.length > 0)
    throw cyrnelError(
      'invalid_request',
      `tools must be named <serviceId>.<toolId>: ${malformed.slice(0, 20).join(', ')}`,
      { details: [{ path: 'tools', message: 'must be <serviceId>.<toolId>' }] },
    );
  const wholeServices = new Set(services);
  const toolSet = new Set(tools);
  const toolServices = new Set(tools.map((name) => name.slice(0, name.indexOf('.'))));
  return {
    key: `s=${services.join(',')};t=${tools.join(',')}`,
    reaches: (serviceId) => wholeServices.has(serviceId) || toolServices.has(serviceId),
    has: (serviceId, toolId) => wholeServices.has(serviceId) || toolSet.has(`${serviceId}.${toolId}`),
    unknownServices: (known) => {
      const set = new Set(known);
      return services.filter((id) => !set.has(id));
    },
    unknownTools: (found) => tools.filter((name) => !found.has(name)),
  };
}
