import {
  type GenerateTypesOptions,
  sharedSchemaName,
  sharedSchemaRef,
  type ToolDocsInput,
} from '@cyrnel/sdk';
import { mergeStatuses } from './merge-statuses';
import { type Rendering, renderWithin } from './render-within';
import { renderSchemaType } from './schema-type';
import { createServiceScope, type ServiceLookup, type ServiceScope, serviceLookup } from './service-scope';
import { sharedDeclarations, type TypesBudget, type Wanted } from './shared-declarations';
import { memberKey } from './type-identifiers';
import { comment, INLINE_WIDTH, PACK_WIDTH } from './type-layout';
import { lookupType, type TypeTarget } from './type-lookup';
import { STUB_DECLARATION, sandboxGlobals } from './types-preamble';

export { SCHEMAS_NAMESPACE } from './service-scope';

/** The namespace the tools of every service are declared in: `CyrnelTools.<service>`. */
export const TOOLS_NAMESPACE = 'CyrnelTools';

/** The interface the types asked for by name are members of: `CyrnelTypes["<name>"]`. */
export const TYPES_INTERFACE = 'CyrnelTypes';

// What a tool's own member (parameters and result) may take of its budget before its nested
// objects become stubs; the rest is for the shared schemas it reaches.
const TOOL_SHARE = 0.5;
// A tool's parameters (root, slots, their members' objects) and its result (root, body, its
// members' objects) are always written.
const LEAST_TOOL_DEPTH = 2;
// A tool too large for its share even at the least depth is squeezed: first its enums of more
// values than this become stubs, then its comments are cut this short, then left out.
const SQUEEZED_ENUM = 16;
const SQUEEZED_COMMENT = 60;
const TOOL_SQUEEZES = 3;
// A type asked for by name: its members and one level of their objects.
const LEAST_TYPE_DEPTH = 1;

interface ServiceEntry {
  readonly tools: ToolDocsInput[];
  readonly known: Map<string, ToolDocsInput>;
  schemas: ToolDocsInput['schemas'];
}

function byService(
  tools: readonly ToolDocsInput[],
  sources: readonly ToolDocsInput[],
  named: readonly string[],
): Map<string, ServiceEntry> {
  const services = new Map<string, ServiceEntry>();
  for (const serviceId of named) services.set(serviceId, { tools: [], known: new Map(), schemas: undefined });
  const entry = (tool: ToolDocsInput) => {
    const found: ServiceEntry = services.get(tool.serviceId) ?? {
      tools: [],
      known: new Map(),
      schemas: undefined,
    };
    services.set(tool.serviceId, found);
    found.known.set(tool.toolId, tool);
    found.schemas ??= tool.schemas;
    return found;
  };
  for (const tool of tools) entry(tool).tools.push(tool);
  for (const tool of sources) entry(tool);
  return services;
}

/** One tool's member of `CyrnelTools.<service>`, its nested objects beyond the share made stubs. */
function renderTool(
  scope: ServiceScope,
  tool: ToolDocsInput,
  share: number | undefined,
  written: Set<string>,
  minSqueeze: number,
): Rendering {
  let used = written;
  // Parameters by their member path, results under `result`: the names a stub is asked for by.
  const label = (side: string[]) => (path: readonly string[]) =>
    [scope.serviceId, tool.toolId, ...side, ...path].join('.');
  const rendering = renderWithin(
    (depth, record, squeeze, maxLength) => {
      // A comment is written once per service: only the rendering kept may mark it written.
      used = new Set(written);
      const options = {
        inlineWidth: INLINE_WIDTH,
        packWidth: PACK_WIDTH,
        indent: 2,
        comments: 2,
        firstSentence: true,
        refType: scope.refType(undefined),
        writtenComments: used,
        record,
        ...(maxLength === undefined ? {} : { maxLength }),
        ...(squeeze > 0 ? { stubEnums: SQUEEZED_ENUM } : {}),
        ...(squeeze > 1 ? { commentWidth: SQUEEZED_COMMENT } : {}),
        ...(squeeze > 2 ? { comments: 0 } : {}),
      };
      const stub = (side: string[]) => (depth === undefined ? {} : { stub: { depth, name: label(side) } });
      const input = renderSchemaType(tool.inputSchema, { ...options, ...stub([]) });
      const output = renderSchemaType(mergeStatuses(tool.outputSchema), { ...options, ...stub(['result']) });
      return `${comment(tool.description, '    ')}    ${memberKey(tool.toolId)}: { invoke(parameters: ${input}): Promise<${output}> };`;
    },
    LEAST_TOOL_DEPTH,
    share,
    TOOL_SQUEEZES,
    minSqueeze,
  );
  for (const seen of used) written.add(seen);
  return rendering;
}

/** A member type asked for by name, as a member of `CyrnelTypes`. */
function renderMember(
  scope: ServiceScope,
  target: TypeTarget & { kind: 'member' },
  share: number | undefined,
): Rendering {
  const rendering = renderWithin(
    (depth, record, _squeeze, maxLength) =>
      renderSchemaType(target.schema, {
        indent: 1,
        inlineWidth: INLINE_WIDTH,
        packWidth: PACK_WIDTH,
        refType: scope.refType(undefined),
        record,
        ...(maxLength === undefined ? {} : { maxLength }),
        ...(depth === undefined
          ? {}
          : { stub: { depth, name: (path) => [target.label, ...path].join('.') } }),
      }),
    LEAST_TYPE_DEPTH,
    share,
  );
  return { ...rendering, text: `  ${JSON.stringify(target.label)}: ${rendering.text};` };
}

const wantedRefs = (rendering: Rendering): Wanted[] =>
  rendering.refs.flatMap((ref) => {
    const name = sharedSchemaName(ref);
    return name === undefined ? [] : [{ name, guaranteed: true }];
  });

/**
 * Ambient declarations of the sandbox globals (`declare const cyrnel: {...}`) covering every
 * given tool's input and output, for `GET /environment/types`. Shared schemas
 * (`ToolDocsInput.schemas`) become named types declared once, `CyrnelSchemas.<service>.<name>`,
 * and only those the given tools reach. With `maxBytes`, what lies beyond the budget becomes
 * stubs, and `types` renders stubs by name (as members of `CyrnelTypes`; without tools, without
 * the sandbox globals). Compiles with `tsc --strict`.
 *
 * @example
 * ```ts
 * generateTypes(tools, { maxBytes: DEFAULT_TYPES_MAX_BYTES }); // `customer?: string | CyrnelStub<"stripe.customer"> | null;` …
 * generateTypes([], { types: ['stripe.customer'], typeSources }); // `type customer = { id: string; … }` …
 * ```
 */
export function generateTypes(tools: readonly ToolDocsInput[], options: GenerateTypesOptions = {}): string {
  const selection = select(tools, options);
  const { maxBytes } = options;
  let text = renderSelection(selection, maxBytes, 0);
  if (maxBytes === undefined) return text;
  // Over the budget with what must be written: every tool squeezed alike, step by step (comments
  // are the first thing a selection loses, before it spends the room on shared schemas again).
  const limit = maxBytes * selection.units;
  for (let squeeze = 1; text.length > limit && squeeze <= TOOL_SQUEEZES; squeeze++)
    text = renderSelection(selection, maxBytes, squeeze);
  return text;
}

/** The services of a rendering with their scopes, the tools and the types asked for, and the names found nowhere. */
interface Selection {
  readonly services: { scope: ServiceScope; tools: ToolDocsInput[]; own: TypeTarget[]; named: boolean }[];
  readonly unknown: string[];
  /** The sandbox globals are declared (not for types asked for alone). */
  readonly withTools: boolean;
  /** Tools and types asked for: what the budget is counted in. */
  readonly units: number;
}

function select(tools: readonly ToolDocsInput[], options: GenerateTypesOptions): Selection {
  const named = options.services ?? [];
  const services = byService(tools, options.typeSources ?? [], named);
  const lookups = new Map<string, ServiceLookup>(
    [...services].map(([serviceId, entry]) => [
      serviceId,
      serviceLookup(serviceId, entry.schemas, entry.known),
    ]),
  );
  const targets: TypeTarget[] = [];
  const unknown: string[] = [];
  for (const label of new Set(options.types ?? [])) {
    const target = lookupType(label, lookups);
    if (target) targets.push(target);
    else unknown.push(label);
  }
  const scopes: Selection['services'] = [];
  for (const [serviceId, entry] of services) {
    const own = targets.filter((target) => target.serviceId === serviceId);
    if (entry.tools.length === 0 && own.length === 0 && !named.includes(serviceId)) continue;
    const roots = [
      ...entry.tools.flatMap((tool) => [tool.inputSchema, tool.outputSchema]),
      ...own.map((target) =>
        target.kind === 'schema' ? { $ref: sharedSchemaRef(target.name) } : target.schema,
      ),
    ];
    scopes.push({
      scope: createServiceScope(lookups.get(serviceId) as ServiceLookup, roots),
      tools: entry.tools,
      own,
      named: named.includes(serviceId),
    });
  }
  return {
    services: scopes,
    unknown,
    withTools: tools.length > 0 || targets.length === 0,
    units: tools.length + targets.length,
  };
}

function renderSelection(selection: Selection, maxBytes: number | undefined, squeeze: number): string {
  const budget: TypesBudget = {
    remaining: maxBytes === undefined ? Number.POSITIVE_INFINITY : maxBytes * selection.units,
    share: maxBytes === undefined ? undefined : Math.floor(maxBytes * TOOL_SHARE),
  };
  if (selection.withTools) budget.remaining -= sandboxGlobals('').length;
  if (maxBytes !== undefined) budget.remaining -= STUB_DECLARATION.length;
  const namespaces: string[] = [];
  const interfaces: string[] = [];
  const serviceLines: string[] = [];
  const typeLines: string[] = [];
  let stubs = false;
  for (const { scope, tools, own, named } of selection.services) {
    const wanted: Wanted[] = [];
    const written = new Set<string>();
    const members = tools.map((tool) => {
      const rendering = renderTool(scope, tool, budget.share, written, squeeze);
      budget.remaining -= rendering.text.length + 1;
      stubs ||= rendering.stubs.length > 0;
      wanted.push(...wantedRefs(rendering));
      return rendering.text;
    });
    for (const target of own) {
      if (target.kind === 'schema') {
        wanted.push({ name: target.name, guaranteed: true });
        const type = scope.refType(undefined)(sharedSchemaRef(target.name), false);
        typeLines.push(`  ${JSON.stringify(target.label)}: ${type};`);
        continue;
      }
      const rendering = renderMember(scope, target, budget.share);
      budget.remaining -= rendering.text.length + 1;
      stubs ||= rendering.stubs.length > 0;
      wanted.push(...wantedRefs(rendering));
      typeLines.push(rendering.text);
    }
    const shared = sharedDeclarations(scope, wanted, budget);
    stubs ||= shared.stubs;
    if (shared.text) namespaces.push(shared.text);
    // A service named without tools is declared empty: a misspelt tool is then reported at its name.
    if (members.length === 0 && !named) continue;
    interfaces.push(
      members.length === 0
        ? `  interface ${scope.namespace} {}`
        : `  interface ${scope.namespace} {\n${members.join('\n')}\n  }`,
    );
    serviceLines.push(
      `    ${memberKey(scope.serviceId)}: CyrnelService<${TOOLS_NAMESPACE}.${scope.namespace}>;`,
    );
  }
  const { unknown, withTools } = selection;
  return assemble({ namespaces, interfaces, serviceLines, typeLines, unknown, stubs, withTools });
}

function assemble(parts: {
  namespaces: string[];
  interfaces: string[];
  serviceLines: string[];
  typeLines: string[];
  unknown: string[];
  stubs: boolean;
  withTools: boolean;
}): string {
  const unknownBlock =
    parts.unknown.length > 0
      ? `// Unknown types (neither a shared schema nor a member of a tool's parameters or result): ${parts.unknown.join(', ')}\n\n`
      : '';
  const schemasBlock =
    parts.namespaces.length > 0
      ? `/** Schemas shared by the tools of each service, declared once: \`CyrnelSchemas.<service>.<name>\`. */\n${parts.namespaces.join('\n')}\n\n`
      : '';
  const toolsBlock =
    parts.interfaces.length > 0
      ? `/** The tools of each service: \`${TOOLS_NAMESPACE}.<service>\`, reached as \`cyrnel.services.<service>.tools\`. */\ndeclare namespace ${TOOLS_NAMESPACE} {\n${parts.interfaces.join('\n')}\n}\n\n`
      : '';
  const typesBlock =
    parts.typeLines.length > 0
      ? `/** The types asked for, by the names their stubs carry. */\ninterface ${TYPES_INTERFACE} {\n${parts.typeLines.join('\n')}\n}\n\n`
      : '';
  const stubBlock = parts.stubs ? `${STUB_DECLARATION}\n` : '';
  const globals = parts.withTools ? sandboxGlobals(parts.serviceLines.join('\n')) : '';
  return `${unknownBlock}${schemasBlock}${toolsBlock}${typesBlock}${stubBlock}${globals}`;
}
