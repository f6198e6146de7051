import { cyrnelError, type EnvironmentBindings, isPlainObject, type ToolDocsInput } from '@cyrnel/sdk';
import type { ChildCallKind } from '../shared/sandbox-protocol';

function invalid(message: string): Error {
  return cyrnelError('invalid_request', message);
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw invalid(`${name} must be a string`);
  return value;
}

function names(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.length > 1000 || value.some((item) => typeof item !== 'string'))
    throw invalid(`${name} must be an array of at most 1000 strings`);
  return [...value] as string[];
}

/**
 * Route one sandbox host call to the bindings. Arguments come from untrusted code, so every
 * shape is checked here before the host sees it. `signature` renders the TypeScript signature
 * `discover.tool` adds (off the main thread: see `createRenderer`).
 */
export async function performHostCall(
  bindings: EnvironmentBindings,
  eid: number,
  kind: ChildCallKind,
  args: readonly unknown[],
  signature: (tool: ToolDocsInput) => Promise<string>,
): Promise<unknown> {
  switch (kind) {
    case 'invoke': {
      const [serviceId, toolId, parameters, connection] = args;
      if (!isPlainObject(parameters))
        throw cyrnelError('invalid_parameters', 'invoke expects a parameters object');
      return bindings.invokeTool(eid, {
        serviceId: text(serviceId, 'serviceId'),
        toolId: text(toolId, 'toolId'),
        parameters,
        // The host checks it against the process's principal.
        ...(connection === undefined ? {} : { connection: text(connection, 'connection') }),
      });
    }
    case 'discoverServices': {
      const query = isPlainObject(args[0]) ? args[0] : {};
      return bindings.discoverServices(eid, typeof query.query === 'string' ? { query: query.query } : {});
    }
    case 'discoverTools': {
      const q = isPlainObject(args[0]) ? args[0] : {};
      return bindings.discoverTools(eid, {
        ...(typeof q.query === 'string' ? { query: q.query } : {}),
        ...(typeof q.serviceId === 'string' ? { serviceId: q.serviceId } : {}),
        ...(typeof q.limit === 'number' && Number.isFinite(q.limit) ? { limit: q.limit } : {}),
      });
    }
    case 'describeTool': {
      const description = await bindings.describeTool(
        eid,
        text(args[0], 'serviceId'),
        text(args[1], 'toolId'),
      );
      return { ...description, signature: await signature(description) };
    }
    case 'discoverTypes': {
      const selection = isPlainObject(args[0]) ? args[0] : {};
      if (!bindings.discoverTypes)
        throw cyrnelError('module_unavailable', 'type declarations are not available');
      return bindings.discoverTypes(eid, {
        ...(selection.services === undefined ? {} : { services: names(selection.services, 'services') }),
        ...(selection.tools === undefined ? {} : { tools: names(selection.tools, 'tools') }),
        ...(selection.types === undefined ? {} : { types: names(selection.types, 'types') }),
        // Checked by the host with the query's own rules.
        ...(selection.maxBytes === undefined ? {} : { maxBytes: selection.maxBytes as number }),
      });
    }
    default:
      throw invalid(`Unknown host call ${String(kind)}`);
  }
}
