import { describe, expect, it } from 'vitest';
import { parseDocument } from './parse-document';
import { createSchemaRegistry } from './schema-registry';

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
});
