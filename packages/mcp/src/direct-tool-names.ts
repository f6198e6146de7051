/**
 * The longest tool name MCP allows (its tool-name rules: 1 to 128 characters of ASCII letters,
 * digits, `_`, `-` and `.`).
 */
export const MAX_TOOL_NAME_LENGTH = 128;

/** The characters MCP allows in a tool name. */
const NAME_CHARACTERS = /^[A-Za-z0-9_.-]+$/;

/** Between a service id and a tool id in a direct tool's name. */
export const NAME_SEPARATOR = '__';

/** A catalog tool, by its service and its id. */
export interface QualifiedTool {
  readonly serviceId: string;
  readonly toolId: string;
}

/** Why a tool is not offered under its name. */
export type LeftOutReason = 'characters' | 'length' | 'collision';

/** A tool left out of the direct tools, with why. */
export interface LeftOutName<T extends QualifiedTool> {
  readonly tool: T;
  /** The name it would have had. */
  readonly name: string;
  readonly reason: LeftOutReason;
  /** For a collision: the other tools that would have had the same name. */
  readonly collidesWith?: readonly QualifiedTool[];
}

/** The name of a catalog tool as a direct tool: `<service>__<tool>`. */
export const directToolName = (tool: QualifiedTool): string =>
  `${tool.serviceId}${NAME_SEPARATOR}${tool.toolId}`;

/**
 * Name every tool `<service>__<tool>` and keep those whose name follows MCP's rules and is theirs
 * alone. A name that breaks the rules (a `$` in an id, more than 128 characters) or that two tools
 * would share (`a__b` + `c` and `a` + `b__c`) leaves its tools out, every one of them: no tool is
 * renamed, so a name never means another tool than the one it spells, whatever order the catalog
 * lists them in.
 *
 * @example
 * ```ts
 * const { named, leftOut } = nameTools([{ serviceId: 'shop', toolId: 'getUser' }]);
 * named.get('shop__getUser'); // { serviceId: 'shop', toolId: 'getUser' }
 * ```
 */
export function nameTools<T extends QualifiedTool>(
  tools: readonly T[],
): { named: Map<string, T>; leftOut: LeftOutName<T>[] } {
  const byName = new Map<string, T[]>();
  const leftOut: LeftOutName<T>[] = [];
  for (const tool of tools) {
    const name = directToolName(tool);
    if (!NAME_CHARACTERS.test(name)) leftOut.push({ tool, name, reason: 'characters' });
    else if (name.length > MAX_TOOL_NAME_LENGTH) leftOut.push({ tool, name, reason: 'length' });
    else byName.set(name, [...(byName.get(name) ?? []), tool]);
  }
  const named = new Map<string, T>();
  for (const [name, holders] of byName) {
    const [only] = holders;
    if (holders.length === 1 && only) {
      named.set(name, only);
      continue;
    }
    for (const tool of holders) {
      const collidesWith = holders
        .filter((other) => other !== tool)
        .map(({ serviceId, toolId }) => ({ serviceId, toolId }));
      leftOut.push({ tool, name, reason: 'collision', collidesWith });
    }
  }
  return { named, leftOut };
}

/** A sentence saying why a tool was left out, for the log. */
export function leftOutMessage(left: LeftOutName<QualifiedTool>): string {
  const id = `${left.tool.serviceId}.${left.tool.toolId}`;
  if (left.reason === 'characters')
    return `${id} is not offered as a direct tool: its name ${left.name} has characters MCP does not allow in a tool name`;
  if (left.reason === 'length')
    return `${id} is not offered as a direct tool: its name is ${left.name.length} characters long, more than MCP's ${MAX_TOOL_NAME_LENGTH}`;
  const others = (left.collidesWith ?? []).map((other) => `${other.serviceId}.${other.toolId}`).join(', ');
  return `${id} is not offered as a direct tool: its name ${left.name} is also the name of ${others}`;
}
