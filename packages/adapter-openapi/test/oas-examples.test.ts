import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { isValidIdentifier, type ServiceDefinition, withSharedSchemas } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { generateDefinition } from '../src/index';
import { problemsOf, useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('@readme/oas-examples/package.json'));

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return /\.(json|ya?ml)$/.test(name) ? [path] : [];
    });
}

const files = ['2.0', '3.0', '3.1'].flatMap((version) => walk(join(root, version)));

// Every $ref of a tool schema must point into the shared schemas (or the schema's own $defs).
function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsOf(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else if (
        key !== 'example' &&
        key !== 'examples' &&
        key !== 'default' &&
        key !== 'enum' &&
        key !== 'const'
      )
        refsOf(value, out);
    }
  }
  return out;
}

/**
 * Ids, `$ref`s, and every schema in the host's checker: each compiles and validating a value
 * answers valid or a normal `invalid_request`. Returns the schemas that failed, with the reason.
 */
async function checkDefinition(name: string, definition: ServiceDefinition): Promise<string[]> {
  const ids = definition.tools.map((t) => t.id);
  expect(ids.every((id) => isValidIdentifier(id))).toBe(true);
  expect(new Set(ids.map((id) => id.toLowerCase())).size).toBe(ids.length);
  const checks: [string, unknown, unknown][] = [
    [`${name} configSchema`, definition.configSchema, {}],
    [`${name} secretsSchema`, definition.secretsSchema, {}],
  ];
  for (const generated of definition.tools) {
    // As the host compiles them: the shared schemas each one reaches as its `$defs`.
    const tool = {
      id: generated.id,
      inputSchema: withSharedSchemas(generated.inputSchema, definition.schemas),
      outputSchema: withSharedSchemas(generated.outputSchema, definition.schemas),
    };
    for (const schema of [tool.inputSchema, tool.outputSchema]) {
      const defs = (schema.$defs ?? {}) as Record<string, unknown>;
      for (const ref of refsOf(schema))
        expect(Object.hasOwn(defs, ref.replace(/^#\/\$defs\//, ''))).toBe(true);
    }
    checks.push([`${name} ${tool.id} inputSchema`, tool.inputSchema, {}]);
    checks.push([`${name} ${tool.id} outputSchema`, tool.outputSchema, {}]);
    // A response-shaped value walks into the body schemas too.
    checks.push([
      `${name} ${tool.id} outputSchema`,
      tool.outputSchema,
      { status: 200, headers: {}, body: null },
    ]);
  }
  const failed = await Promise.all(
    checks.map(([label, schema, value]) =>
      problemsOf(checker, schema, value, label).then(
        () => undefined,
        (error: Error) => error.message,
      ),
    ),
  );
  return failed.filter((message) => message !== undefined);
}

describe('@readme/oas-examples', () => {
  it('does produce a definition the host can validate with, or a clear error, for every document', async () => {
    expect(files.length).toBeGreaterThan(100);
    const rows: string[] = ['| document | outcome |', '|---|---|'];
    const unusable: string[] = [];
    for (const file of files) {
      const name = relative(root, file);
      let outcome: string;
      let definition: ServiceDefinition | undefined;
      try {
        definition = generateDefinition(readFileSync(file, 'utf8'));
        outcome = `${definition.tools.length} tools`;
      } catch (error) {
        const message = (error as Error).message;
        expect(message).toMatch(/OpenAPI|Swagger|\$ref|YAML|JSON/);
        outcome = `error: ${message}`;
      }
      if (definition) unusable.push(...(await checkDefinition(name, definition)));
      rows.push(`| ${name} | ${outcome.replace(/\|/g, '\\|')} |`);
    }
    // Every schema compiles and runs in the engine the host validates with.
    expect(unusable).toEqual([]);
    await expect(`${rows.join('\n')}\n`).toMatchFileSnapshot('./__snapshots__/oas-examples.md');
  });

  it('does give the same definition for a document as JSON and as YAML, every time', () => {
    // The fixture's JSON and YAML twins differ in content, so each JSON document is re-serialised as YAML.
    const jsonFiles = files.filter((f) => f.endsWith('.json'));
    for (const file of jsonFiles) {
      const text = readFileSync(file, 'utf8');
      let fromJson: ServiceDefinition;
      try {
        fromJson = generateDefinition(text);
      } catch {
        continue;
      }
      expect(generateDefinition(stringifyYaml(JSON.parse(text)))).toEqual(fromJson);
      expect(generateDefinition(text)).toEqual(fromJson);
    }
    expect(jsonFiles.length).toBeGreaterThan(50);
  });
});
