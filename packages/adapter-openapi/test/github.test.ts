import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Validator } from '@cfworker/json-schema';
import { isValidIdentifier, type ServiceDefinition } from '@cyrnel/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateDefinition } from '../src/index';

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

  it('does stay within a sane size, with finite $defs per tool', () => {
    const size = JSON.stringify(first).length;
    expect(size).toBeLessThan(16 * 1024 * 1024);
    const repos = first.tools.find((t) => t.id === 'repos_get');
    expect(Object.keys((repos?.outputSchema.$defs as object) ?? {})).toContain('full-repository');
  });

  it('does produce schemas that compile and validate real parameters', () => {
    const tool = first.tools.find((t) => t.id === 'issues_create');
    expect(tool).toBeDefined();
    const params = {
      path: { owner: 'octo', repo: 'hello' },
      body: { title: 'Bug', labels: ['a', { name: 'b' }], assignees: ['me'] },
    };
    expect(new Validator(tool?.inputSchema as never, '2020-12', false).validate(params).valid).toBe(true);
    expect(
      new Validator(tool?.inputSchema as never, '2020-12', false).validate({ path: { owner: 'o' } }).valid,
    ).toBe(false);
    // Every tool's schemas compile, and every $ref in them points into their own $defs.
    let refs = 0;
    for (const t of first.tools) {
      new Validator(t.inputSchema as never, '2020-12').validate({});
      new Validator(t.outputSchema as never, '2020-12').validate({ status: 200, headers: {}, body: null });
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
  });
});
