import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isValidIdentifier, type ServiceDefinition, withSharedSchemas } from '@cyrnel/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateDefinition } from '../src/index';
import { isValid, problemsOf, useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

// Read as a file (test setup), not imported: @octokit/openapi is a dev-only fixture.
const require = createRequire(import.meta.url);
const text = readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'), 'utf8');

let first: ServiceDefinition;

// Every $ref of a schema, skipping values that are data rather than schemas.
function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsOf(item, out);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else if (!['example', 'examples', 'default', 'enum', 'const'].includes(key)) refsOf(value, out);
    }
  }
  return out;
}

beforeAll(() => {
  first = generateDefinition(text);
});

describe("GitHub's REST description", () => {
  it('does produce ~1,200 unique valid tool ids', () => {
    const ids = first.tools.map((t) => t.id);
    expect(ids.length).toBeGreaterThan(1100);
    expect(ids.length).toBeLessThan(1400);
    expect(ids.every((id) => isValidIdentifier(id))).toBe(true);
    expect(new Set(ids.map((id) => id.toLowerCase())).size).toBe(ids.length);
    expect(ids).toContain('meta_root');
    expect(ids).toContain('repos_get');
  });

  it('does generate the identical definition twice', () => {
    expect(generateDefinition(text)).toEqual(first);
  });

  it('does stay within a sane size, each component schema once, shared by name', () => {
    const size = JSON.stringify(first).length;
    expect(size).toBeLessThan(8 * 1024 * 1024);
    expect(Object.keys(first.schemas ?? {})).toContain('full-repository');
    const repos = first.tools.find((t) => t.id === 'repos_get');
    expect(repos?.outputSchema.$defs).toBeUndefined();
    expect(JSON.stringify(repos?.outputSchema)).toContain('"#/$defs/full-repository"');
  });

  it("does produce schemas that validate real parameters in the host's checker", async () => {
    const tool = first.tools.find((t) => t.id === 'issues_create');
    expect(tool).toBeDefined();
    const params = {
      path: { owner: 'octo', repo: 'hello' },
      body: { title: 'Bug', labels: ['a', { name: 'b' }], assignees: ['me'] },
    };
    const schema = withSharedSchemas(tool?.inputSchema ?? {}, first.schemas);
    expect(await problemsOf(checker, schema, params)).toEqual([]);
    expect(await isValid(checker, schema, { path: { owner: 'o' } })).toBe(false);
  });

  it("does produce schemas that all compile and run in the host's checker, every $ref resolved by the shared schemas", async () => {
    let refs = 0;
    const checks: Promise<string | undefined>[] = [];
    const check = (label: string, schema: unknown, value: unknown) =>
      checks.push(
        problemsOf(checker, schema, value, label).then(
          () => undefined,
          (error: Error) => error.message,
        ),
      );
    for (const tool of first.tools) {
      // As the host compiles them: the shared schemas each one reaches as its `$defs`.
      const t = {
        id: tool.id,
        inputSchema: withSharedSchemas(tool.inputSchema, first.schemas),
        outputSchema: withSharedSchemas(tool.outputSchema, first.schemas),
      };
      check(`${t.id} inputSchema`, t.inputSchema, {});
      check(`${t.id} outputSchema`, t.outputSchema, {});
      check(`${t.id} outputSchema`, t.outputSchema, { status: 200, headers: {}, body: null });
      for (const schema of [t.inputSchema, t.outputSchema]) {
        const defs = (schema.$defs ?? {}) as Record<string, unknown>;
        for (const ref of refsOf(schema)) {
          expect({ tool: t.id, ref, resolves: Object.hasOwn(defs, ref.replace(/^#\/\$defs\//, '')) }).toEqual(
            {
              tool: t.id,
              ref,
              resolves: true,
            },
          );
          refs++;
        }
      }
    }
    expect(refs).toBeGreaterThan(5_000);
    const unusable = (await Promise.all(checks)).filter((message) => message !== undefined);
    expect(unusable).toEqual([]);
  }, 300_000);
});
