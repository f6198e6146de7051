import { DEFAULT_TYPES_MAX_BYTES, isPlainObject, sharedSchemaName, type ToolDocsInput } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../src';
import { mergeStatuses } from '../src/type-rendering/merge-statuses';
import { realTools, SELECTIONS, selected } from './real-apis';
import { explosive, tool } from './render-schemas';
import { strictDiagnostics } from './strict-compile';

const KIB = 1024;
const TARGETS = { stripe: 25 * KIB, github: 20 * KIB, graph: 25 * KIB } as const;
const services = Object.keys(SELECTIONS) as (keyof typeof SELECTIONS)[];

const budgeted = (service: keyof typeof SELECTIONS) =>
  generateTypes(selected(service), { maxBytes: DEFAULT_TYPES_MAX_BYTES });

const stubNames = (text: string) => [
  ...new Set([...text.matchAll(/CyrnelStub<"([^"]+)"/g)].map((m) => m[1] as string)),
];

/** The member names of an object schema, through compositions (not through references). */
function memberNames(schema: unknown, out = new Set<string>()): Set<string> {
  if (!isPlainObject(schema)) return out;
  if (isPlainObject(schema.properties)) for (const name of Object.keys(schema.properties)) out.add(name);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) for (const part of parts) memberNames(part, out);
  }
  return out;
}

const written = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));

/** The text of the declaration `type <id> = …` up to the next one. */
function declaration(text: string, id: string): string | undefined {
  const start = text.indexOf(`\n  type ${id} = `);
  if (start < 0) return undefined;
  const end = text.slice(start + 1).search(/\n {2}(\/\*\*|type )|\n}/);
  return text.slice(start, end < 0 ? undefined : start + 1 + end);
}

describe('generateTypes within a budget, on real descriptions', () => {
  it("keeps 5 tools of Stripe and Microsoft Graph under 25 KiB and GitHub's under 20 KiB, compiling under tsc --strict", () => {
    const files: Record<string, string> = {};
    for (const service of services) {
      const text = budgeted(service);
      files[service] = text;
      expect(Buffer.byteLength(text), service).toBeLessThanOrEqual(TARGETS[service]);
      expect(text).toContain('type CyrnelStub<Name extends string');
    }
    // Without a budget, the same Stripe selection declares every schema it reaches.
    expect(Buffer.byteLength(generateTypes(selected('stripe')))).toBeGreaterThan(150_000);
    expect(strictDiagnostics(files)).toEqual([]);
  }, 120_000);

  it('writes every field the tools use directly: their slots, the slots’ members and the whole types of their results', () => {
    for (const service of services) {
      const text = budgeted(service);
      for (const tool of selected(service)) {
        const slots = isPlainObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
        for (const [slot, schema] of Object.entries(slots)) {
          expect(text, `${tool.toolId}.${slot}`).toMatch(new RegExp(`\\b${slot}\\??: `));
          for (const member of memberNames(schema))
            expect(text, `${tool.toolId}.${slot}.${member}`).toContain(`${written(member)}?: `.slice(0, -3));
        }
        // The shared schemas a result's body is: declared whole, every member written.
        const variants = mergeStatuses(tool.outputSchema);
        for (const body of JSON.stringify(variants).matchAll(/"body":\{"\$ref":"([^"]+)"/g)) {
          const name = sharedSchemaName(body[1] as string) as string;
          expect(text).not.toContain(`CyrnelStub<"${service}.${name}">`);
          const id = name.replace(/[^A-Za-z0-9_$]/g, '_');
          const own = declaration(text, id);
          expect(own, `${service}.${name}`).toBeDefined();
          // A near-copy of another declaration is written from it (`Omit<base, …> & {…}`).
          const base = /^\n {2}type \S+ = (?:Omit<)?([A-Za-z0-9_$]+)[ ,]/.exec(own ?? '')?.[1];
          const declared = `${own}${base ? declaration(text, base) : ''}`;
          for (const member of memberNames(tool.schemas?.[name]))
            expect(declared, `${name}.${member}`).toContain(written(member));
        }
      }
    }
  }, 120_000);

  it('declares the types of stubs asked for by name, each within the budget, and lists names found nowhere', () => {
    const tools = selected('stripe');
    const names = stubNames(budgeted('stripe'));
    const member = 'stripe.PostPaymentIntents.body.payment_method_options.card';
    expect(names).toContain(member);
    expect(names).toContain('stripe.invoice');
    const answer = generateTypes([], {
      types: [member, 'stripe.invoice', 'stripe.nothing_here'],
      typeSources: tools,
      maxBytes: DEFAULT_TYPES_MAX_BYTES,
    });
    expect(answer).toContain(
      `// Unknown types (neither a shared schema nor a member of a tool's parameters or result): stripe.nothing_here`,
    );
    expect(answer).toContain(`"${member}": {`);
    expect(answer).toContain('request_three_d_secure?: "any" | "automatic";');
    expect(answer).toContain('"stripe.invoice": CyrnelSchemas.stripe.invoice;');
    expect(declaration(answer, 'invoice')).toContain('amount_due: number;');
    // Types asked for alone come without the sandbox globals; stubs in them are named again.
    expect(answer).not.toContain('declare const cyrnel');
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(2 * DEFAULT_TYPES_MAX_BYTES + 2 * KIB);
    expect(stubNames(answer).length).toBeGreaterThan(0);
    expect(strictDiagnostics({ answer })).toEqual([]);
  }, 120_000);

  it('resolves the name of every stub the selections hold, and a stub of a long enum to its values', () => {
    for (const service of services) {
      const names = stubNames(budgeted(service));
      expect(names.length, service).toBeGreaterThan(0);
      const answer = generateTypes([], { types: names, typeSources: selected(service) });
      expect(answer, service).not.toContain('// Unknown types');
      for (const name of names) expect(answer).toContain(`${JSON.stringify(name)}: `);
    }
    const select = 'graph.me_user_GetUser.query.$select';
    expect(budgeted('graph')).toContain(`$select?: CyrnelStub<"${select}", string>[];`);
    const values = generateTypes([], {
      types: [select],
      typeSources: realTools('graph').slice(0, 1).concat(selected('graph')),
    });
    expect(values).toContain(`"${select}": ("id" | "deletedDateTime" | "accountEnabled"`);
  }, 120_000);
});

describe('generateTypes within a budget, on hostile schemas', () => {
  /** A service whose shared schemas refer to each other in a ring, each with `width` members. */
  function ring(size: number, width: number): ToolDocsInput[] {
    const schemas: Record<string, ToolDocsInput['inputSchema']> = {};
    for (let i = 0; i < size; i++) {
      const properties: Record<string, unknown> = { self: { $ref: `#/$defs/N${i}` } };
      for (let j = 0; j < width; j++) properties[`m${j}`] = { $ref: `#/$defs/N${(i + j + 1) % size}` };
      schemas[`N${i}`] = { type: 'object', properties };
    }
    const ringTool = {
      ...tool('ring', 'walk', { type: 'object', properties: { body: { $ref: '#/$defs/N0' } } }),
      outputSchema: { $ref: '#/$defs/N1' },
      schemas,
    };
    return [ringTool];
  }

  /** An inline object nested `depth` levels deep, each level with a few members. */
  function deep(depth: number): ToolDocsInput['inputSchema'] {
    let node: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < depth; level++)
      node = { type: 'object', properties: { next: node, a: { type: 'string' }, b: { type: 'number' } } };
    return node;
  }

  it('stays within the budget on rings of references, explosive definitions and deep nesting, and compiles', () => {
    const maxBytes = DEFAULT_TYPES_MAX_BYTES;
    const cases: Record<string, ToolDocsInput[]> = {
      ring: ring(2000, 30),
      explosive: [tool('boom', 'explode', explosive(12, 6))],
      deep: [tool('deep', 'dive', deep(5000))],
    };
    const files: Record<string, string> = {};
    for (const [label, tools] of Object.entries(cases)) {
      const text = generateTypes(tools, { maxBytes });
      files[label] = text;
      // One tool: what its parameters and result use directly is cut at 8 shares (4 × maxBytes).
      expect(Buffer.byteLength(text), label).toBeLessThanOrEqual(6 * maxBytes);
      expect(stubNames(text).length, label).toBeGreaterThan(0);
    }
    // Asking for a stub of the ring gives its type, itself bounded and naming its neighbours as stubs.
    const answer = generateTypes([], {
      types: ['ring.N7'],
      typeSources: cases.ring as ToolDocsInput[],
      maxBytes,
    });
    expect(declaration(answer, 'N7')).toContain('self?: N7;');
    expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(2 * maxBytes);
    files.answer = answer;
    expect(strictDiagnostics(files)).toEqual([]);
  }, 120_000);
});
