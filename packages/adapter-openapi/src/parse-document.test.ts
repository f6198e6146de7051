import { describe, expect, it } from 'vitest';
import { generateDefinition } from './generate-definition';
import { MAX_YAML_ALIAS_COUNT, parseDocument } from './parse-document';

// Nine levels of ten aliases each: under 1 KB of YAML that expands to 10^9 leaves.
function billionLaughs(levels: number): string {
  const lines = ['openapi: 3.0.3', 'info: {title: lol, version: "1"}', 'x-lol:', '  l0: &l0 {type: string}'];
  for (let i = 1; i <= levels; i++) {
    const aliases = Array.from({ length: 10 }, (_, j) => `p${j}: *l${i - 1}`).join(', ');
    lines.push(`  l${i}: &l${i} {type: object, properties: {${aliases}}}`);
  }
  lines.push(
    'paths:',
    '  /a:',
    `    post: {requestBody: {content: {application/json: {schema: *l${levels}}}}}`,
  );
  return lines.join('\n');
}

describe('parseDocument', () => {
  it('does refuse a billion-laughs YAML document, naming the problem', () => {
    const text = billionLaughs(9);
    expect(text.length).toBeLessThan(1500);
    expect(() => generateDefinition(text)).toThrow(
      `definition expands YAML aliases too far (an anchor used more than ${MAX_YAML_ALIAS_COUNT} times`,
    );
    // Three levels (1,000 leaves) are already past the limit; two (100) are fine.
    expect(() => parseDocument(billionLaughs(3))).toThrow('YAML aliases too far');
    expect(generateDefinition(billionLaughs(2)).tools).toHaveLength(1);
  });

  it('does accept an anchor reused by hundreds of operations', () => {
    const lines = [
      'openapi: 3.0.3',
      'info: {title: reuse, version: "1"}',
      'x-ok: &ok {"200": {description: ok}}',
    ];
    lines.push('paths:');
    for (let i = 0; i < 500; i++) lines.push(`  /r${i}: {get: {responses: *ok}}`);
    expect(generateDefinition(lines.join('\n')).tools).toHaveLength(500);
  });

  it('does accept unquoted YAML versions (read as numbers) and still refuses other numbers', () => {
    expect(parseDocument('swagger: 2.0\ninfo: {title: s, version: "1"}\npaths: {}\n').dialect).toBe('2.0');
    expect(parseDocument('openapi: 3.0\ninfo: {title: o, version: "1"}\npaths: {}\n').dialect).toBe('3.0');
    expect(parseDocument('openapi: 3.1\ninfo: {title: o, version: "1"}\npaths: {}\n').dialect).toBe('3.1');
    expect(
      parseDocument('{"openapi": 3.0, "info": {"title": "j", "version": "1"}, "paths": {}}').dialect,
    ).toBe('3.0');
    expect(() => parseDocument('openapi: 3.2\ninfo: {title: o, version: "1"}\n')).toThrow(
      "unsupported OpenAPI version '3.2'",
    );
    expect(() => parseDocument('swagger: 1.2\ninfo: {title: o, version: "1"}\n')).toThrow(
      "unsupported Swagger version '1.2'",
    );
    expect(() => parseDocument('openapi: 4\ninfo: {title: o, version: "1"}\n')).toThrow(
      "unsupported OpenAPI version '4.0'",
    );
  });
});
