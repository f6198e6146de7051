import type { ServiceDefinition, ToolDefinition } from '@cyrnel/sdk';
import { isPlainObject } from '@cyrnel/sdk';
import { credentialNames } from './credential-names';
import { createDefinitionBudget } from './definition-budget';
import { buildInputSchema } from './input-schema';
import { jsonKind } from './json-kind';
import { isJsonMediaType } from './media-types';
import { normalizeOperation } from './normalize-operation';
import { operationKeywords } from './operation-keywords';
import type { OperationPlan } from './operation-model';
import { buildOutputSchema } from './output-schema';
import { parseDocument } from './parse-document';
import { parsePathKey } from './path-key';
import { droppedNote, screenParameters } from './reserved-parameters';
import { createSchemaRegistry } from './schema-registry';
import { buildConfigSchema, buildSecretsSchema, buildServicePlan, serversOf } from './service-schemas';
import { toolAnnotations } from './tool-annotations';
import { createToolIdAllocator, toolIdCandidate } from './tool-id';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function securityOf(value: unknown): string[][] {
  if (!Array.isArray(value)) return [];
  return value.filter(isPlainObject).map((requirement) => Object.keys(requirement));
}

// `paths` is optional in 3.1 (a webhooks-only document); anything but an object is a broken document,
// refused rather than read as "no operations".
function pathsOf(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new Error(`paths must be an object of path items, got ${jsonKind(value)}`);
  return value;
}

function acceptOf(responses: ReturnType<typeof normalizeOperation>['responses']): string | undefined {
  const types = [...new Set(responses.flatMap((r) => r.media.map((m) => m.mediaType)))];
  const ordered = [...types.filter(isJsonMediaType), ...types.filter((t) => !isJsonMediaType(t))];
  return ordered.length > 0 ? ordered.join(', ') : undefined;
}

/**
 * Turn an OpenAPI 3.0/3.1 or Swagger 2.0 document (JSON or YAML) into a ServiceDefinition: one tool
 * per operation under `paths`, in document order, its annotations derived from the HTTP method and
 * the operation's `x-cyrnel-annotations`. Pure and deterministic.
 */
export function generateDefinition(text: string): ServiceDefinition {
  const doc = parseDocument(text);
  const { root, dialect } = doc;
  const registry = createSchemaRegistry({ root, dialect });
  const servicePlan = buildServicePlan(doc, registry);
  const allocate = createToolIdAllocator();
  const budget = createDefinitionBudget();
  const info = isPlainObject(root.info) ? root.info : {};
  const tools: ToolDefinition[] = [];
  for (const [path, rawItem] of Object.entries(pathsOf(root.paths))) {
    // Paths objects may carry `x-` extensions, whatever their value.
    if (path.startsWith('x-')) continue;
    const pathItem = registry.deref(rawItem);
    if (!isPlainObject(pathItem))
      throw new Error(`paths['${path}'] must be a path item object, got ${jsonKind(pathItem)}`);
    for (const [key, operation] of Object.entries(pathItem)) {
      const method = key.toLowerCase();
      if (!METHODS.has(method)) continue;
      if (!isPlainObject(operation))
        throw new Error(
          `${method.toUpperCase()} ${path}: the operation must be an object, got ${jsonKind(operation)}`,
        );
      const id = allocate.allocate(toolIdCandidate(operation.operationId, method, path));
      try {
        const tool = buildTool({ id, method, path, pathItem, operation });
        budget.charge(`tool ${id}`, tool);
        tools.push(tool);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`${method.toUpperCase()} ${path}: ${reason}`, { cause: error });
      }
    }
  }

  function buildTool(input: {
    id: string;
    method: string;
    path: string;
    pathItem: Record<string, unknown>;
    operation: Record<string, unknown>;
  }): ToolDefinition {
    const { id, method, path, pathItem, operation } = input;
    const security = securityOf(operation.security ?? root.security);
    const normalized = normalizeOperation({ dialect, registry, root, path, pathItem, operation });
    // Framing headers and names a credential of the operation occupies never reach the input schema:
    // agent code sets every parameter, so they would let it smuggle requests or override credentials.
    const screened = screenParameters(
      normalized.parameters,
      credentialNames(security, servicePlan.securitySchemes),
    );
    const { inputSchema, parameters, body } = buildInputSchema(
      { ...normalized, parameters: screened.kept },
      registry,
    );
    const outputSchema = buildOutputSchema(normalized, registry);
    const servers = dialect === '2.0' ? [] : serversOf(operation.servers ?? pathItem.servers);
    const accept = acceptOf(normalized.responses);
    const key = parsePathKey(path);
    const plan: OperationPlan = {
      method,
      path: key.path,
      ...(key.literal ? { literalQuery: key.literal } : {}),
      parameters,
      ...(body ? { body } : {}),
      security,
      ...(servers.length > 0 ? { servers } : {}),
      ...(accept ? { accept } : {}),
    };
    const summary =
      typeof operation.summary === 'string' && operation.summary.trim()
        ? operation.summary.trim()
        : undefined;
    const description =
      typeof operation.description === 'string' && operation.description.trim()
        ? operation.description.trim()
        : undefined;
    const text = description ?? summary ?? `${method.toUpperCase()} ${path}`;
    return {
      id,
      name: summary ?? id,
      description: screened.noted.length > 0 ? `${text}\n\n${droppedNote(screened.noted)}` : text,
      inputSchema,
      outputSchema,
      adapterDomain: { ...plan } as Record<string, unknown>,
      keywords: operationKeywords(method, path, operation.tags),
      annotations: toolAnnotations(method, operation),
    };
  }

  // Every component schema the tools reach, once per service; tool schemas refer to them by name.
  const schemas = registry.allDefs();
  for (const [name, schema] of Object.entries(schemas)) budget.charge(`schema ${name}`, schema);
  return {
    name: typeof info.title === 'string' && info.title.trim() ? info.title.trim() : 'OpenAPI service',
    description: typeof info.description === 'string' ? info.description.trim() : '',
    configSchema: buildConfigSchema(servicePlan, doc),
    secretsSchema: buildSecretsSchema(servicePlan),
    tools,
    adapterDomain: { ...servicePlan } as Record<string, unknown>,
    ...(Object.keys(schemas).length > 0 ? { schemas } : {}),
  };
}
