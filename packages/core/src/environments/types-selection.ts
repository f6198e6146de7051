import { MAX_TYPES_MAX_BYTES, MIN_TYPES_MAX_BYTES, type TypesSelection } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';

/** Names one selection may carry: a prompt's worth of tools, not a catalog. */
const MAX_NAMES = 1000;

/** A parsed {@link TypesSelection}: which services and tools it names. */
export interface ParsedSelection {
  /** Normalised, sorted, for cache keys. */
  readonly key: string;
  /** It names services or tools (else only types: no tool is rendered). */
  readonly namesTools: boolean;
  /** The names of the stubs whose types to declare (`<serviceId>.<name>`), sorted. */
  readonly types: readonly string[];
  /** The budget asked for, if any. */
  readonly maxBytes: number | undefined;
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

/** `maxBytes` as given: an integer (or its decimal text, from a query) within the bounds. */
function budget(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value) : value;
  if (
    typeof number !== 'number' ||
    !Number.isInteger(number) ||
    number < MIN_TYPES_MAX_BYTES ||
    number > MAX_TYPES_MAX_BYTES
  ) {
    const message = `must be an integer from ${MIN_TYPES_MAX_BYTES} to ${MAX_TYPES_MAX_BYTES}`;
    throw cyrnelError('invalid_request', `maxBytes ${message}`, { details: [{ path: 'maxBytes', message }] });
  }
  return number;
}

/**
 * Read a selection (hostile: query strings or sandbox values). `services`, `tools` and `types` are
 * arrays or comma-separated strings; tools are `<serviceId>.<toolId>`, types `<serviceId>.<name>`;
 * `maxBytes` an integer. Undefined when it names nothing and asks no budget: the whole catalog.
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
  const types = names(input.types, 'types');
  const maxBytes = budget(input.maxBytes);
  if (services.length === 0 && tools.length === 0 && types.length === 0 && maxBytes === undefined)
    return undefined;
  const unnamed = types.filter((name) => !/^[^.]+\../.test(name));
  if (unnamed.length > 0)
    throw cyrnelError(
      'invalid_request',
      `types must be named <serviceId>.<name>: ${unnamed.slice(0, 20).join(', ')}`,
      { details: [{ path: 'types', message: 'must be <serviceId>.<name>' }] },
    );
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
    // Parts that are not asked for are left out: the key of a plain selection stays as it was.
    key: [
      `s=${services.join(',')}`,
      `t=${tools.join(',')}`,
      ...(types.length > 0 ? [`y=${types.join(',')}`] : []),
      ...(maxBytes === undefined ? [] : [`b=${maxBytes}`]),
    ].join(';'),
    namesTools: services.length > 0 || tools.length > 0,
    types,
    maxBytes,
    reaches: (serviceId) => wholeServices.has(serviceId) || toolServices.has(serviceId),
    has: (serviceId, toolId) => wholeServices.has(serviceId) || toolSet.has(`${serviceId}.${toolId}`),
    unknownServices: (known) => {
      const set = new Set(known);
      return services.filter((id) => !set.has(id));
    },
    unknownTools: (found) => tools.filter((name) => !found.has(name)),
  };
}
