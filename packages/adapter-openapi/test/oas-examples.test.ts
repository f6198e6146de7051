import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { Validator } from '@cfworker/json-schema';
import { isValidIdentifier, type ServiceDefinition } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { generateDefinition } from '../src/index';

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

// Every $ref of a tool schema must point into that schema's own $defs.
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

function checkDefinition(definition: ServiceDefinition): void {
  const ids = definition.tools.map((t) => t.id);
  expect(ids.every((id) => isValidIdentifier(id))).toBe(true);
  expect(new Set(ids.map((id) => id.toLowerCase())).size).toBe(ids.length);
  for (const schema of [definition.configSchema, definition.secretsSchema]) {
    new Validator(schema as never, '2020-12').validate({});
  }
  for (const tool of definition.tools) {
    // Compiling dereferences every $ref; validating an arbitrary value walks the schema once.
    for (const schema of [tool.inputSchema, tool.outputSchema]) {
      const defs = (schema.$defs ?? {}) as Record<string, unknown>;
      for (const ref of refsOf(schema))
        expect(Object.hasOwn(defs, ref.replace(/^#\/\$defs\//, ''))).toBe(true);
    }
    new Validator(tool.inputSchema as never, '2020-12').validate({});
    new Validator(tool.outputSchema as never, '2020-12').validate({ status: 200, headers: {}, body: null });
  }
}

describe('@readme/oas-examples', () => {
  it('does produce a valid definition or a clear error for every document', async () => {
    expect(files.length).toBeGreaterThan(100);
    const rows: string[] = ['| document | outcome |', '|---|---|'];
    for (const file of files) {
      const name = relative(root, file);
      let outcome: string;
      try {
        const definition = generateDefinition(readFileSync(file, 'utf8'));
        checkDefinition(definition);
        outcome = `${definition.tools.length} tools`;
      } catch (error) {
        const message = (error as Error).message;
        expect(message).toMatch(/OpenAPI|Swagger|\$ref|YAML|JSON/);
        outcome = `error: ${message}`;
      }
      rows.push(`| ${name} | ${outcome.replace(/\|/g, '\\|')} |`);
    }
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
