import { describe, expect, it } from 'vitest';
import { isValid, useSchemaChecker } from '../test/schema-check';
import { parseDocument } from './parse-document';
import { createSchemaRegistry } from './schema-registry';

const checker = useSchemaChecker();

describe('createSchemaRegistry', () => {
  it('does stop converting past its node limit (YAML aliases under the alias limit, walked per use)', () => {
    const lines = [
      'openapi: 3.0.3',
      'info: {title: y, version: "1"}',
      'x-big: &big',
      '  type: object',
      '  properties:',
    ];
    for (let i = 0; i < 50; i++) lines.push(`    p${i}: {type: string}`);
    lines.push('x-uses:');
    for (let i = 0; i < 40; i++) lines.push(`  - *big`);
    const { root, dialect } = parseDocument(lines.join('\n'));
    const registry = createSchemaRegistry({ root, dialect, maxNodes: 1000 });
    const uses = root['x-uses'] as unknown[];
    expect(() => {
      for (const use of uses) registry.convert(use, new Set());
    }).toThrow(
      'schemas too large: more than 1000 schema objects after expanding shared components and YAML aliases',
    );
  });

  it('does keep nullable beside a $ref (3.0 nullable, 2.0 x-nullable) as anyOf with null', async () => {
    for (const [dialect, keyword, components] of [
      ['3.0', 'nullable', { components: { schemas: { Pet: { type: 'object' } } } }],
      ['2.0', 'x-nullable', { definitions: { Pet: { type: 'object' } } }],
    ] as const) {
      const root = { ...components };
      const ref = dialect === '2.0' ? '#/definitions/Pet' : '#/components/schemas/Pet';
      const registry = createSchemaRegistry({ root, dialect });
      const refs = new Set<string>();
      const schema = registry.convert({ $ref: ref, [keyword]: true }, refs);
      expect(schema).toEqual({ anyOf: [{ $ref: '#/$defs/Pet' }, { type: 'null' }] });
      const full = { ...schema, $defs: registry.defsFor(refs) };
      expect(await isValid(checker, full, null)).toBe(true);
      expect(await isValid(checker, full, { a: 1 })).toBe(true);
      expect(await isValid(checker, full, 'text')).toBe(false);
      expect(registry.convert({ $ref: ref }, new Set())).toEqual({ $ref: '#/$defs/Pet' });
    }
  });
});
