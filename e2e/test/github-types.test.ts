import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';

// End to end: GitHub's description installed, the types of 3 tools asked for, code
// written against them (checked by tsc --strict) run against a stand-in upstream on 127.0.0.1.

const GITHUB = fileURLToPath(import.meta.resolve('@octokit/openapi/generated/api.github.com.json'));
const TOOLS = ['repos_get', 'issues_create', 'issues_get'];

let work: string;
let cyrnel: CyrnelServer;
let upstream: Server;
let upstreamUrl: string;
const received: string[] = [];

/** The 3 routes of the chosen tools, answering small but well-formed GitHub bodies. */
function githubStandIn(): Server {
  const user = { login: 'octocat', id: 1, type: 'User' };
  const issue = (number: number, title: string) => ({ id: 100 + number, number, title, state: 'open', user });
  return createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push(`${request.method} ${request.url}`);
      const json = (status: number, value: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const url = request.url ?? '';
      if (request.method === 'GET' && url === '/repos/octo/hello')
        return json(200, {
          id: 7,
          name: 'hello',
          full_name: 'octo/hello',
          stargazers_count: 42,
          owner: user,
        });
      if (request.method === 'POST' && url === '/repos/octo/hello/issues')
        return json(201, issue(12, (JSON.parse(body) as { title: string }).title));
      if (request.method === 'GET' && url === '/repos/octo/hello/issues/12')
        return json(200, issue(12, 'Bug'));
      json(404, { message: 'Not Found' });
    });
  });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-github-'));
  upstream = githubStandIn();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  cyrnel = await startCyrnel(join(work, 'cyrnel'));
  await cyrnel.client.services.install({
    id: 'github',
    adapter: 'openapi',
    definition: await readFile(GITHUB, 'utf8'),
    config: { baseUrl: upstreamUrl },
  });
  await cyrnel.client.services.setEnabled('github', true);
});

afterAll(async () => {
  await cyrnel?.program.stop();
  await new Promise((resolve) => upstream?.close(resolve));
  if (work) await rm(work, { recursive: true, force: true });
});

const CODE = `
const path = { owner: 'octo', repo: 'hello' };
const repo = await cyrnel.services.github.tools.repos_get.invoke({ path });
if (repo.status !== 200) throw new Error(\`repos_get answered \${repo.status}\`);
const created = await cyrnel.services.github.tools.issues_create.invoke({ path, body: { title: 'Bug', labels: ['bug'] } });
if (created.status !== 201) throw new Error(\`issues_create answered \${created.status}\`);
const issue = await cyrnel.services.github.tools.issues_get.invoke({
  path: { ...path, issue_number: created.body.number },
});
if (issue.status !== 200) throw new Error(\`issues_get answered \${issue.status}\`);
const stars: number = repo.body.stargazers_count;
cyrnel.output({ repo: repo.body.full_name, stars, number: created.body.number, title: issue.body.title, author: issue.body.user?.login ?? null });
`;

describe("GitHub's description, 3 tools picked", () => {
  it('answers the types of the 3 tools only, and code written against them compiles under strict and runs', async () => {
    const res = await fetch(
      `${cyrnel.url}/environment/types?tools=${TOOLS.map((t) => `github.${t}`).join(',')}`,
    );
    expect(res.status).toBe(200);
    const types = await res.text();
    for (const tool of TOOLS) expect(types).toContain(`${tool}: { invoke(`);
    expect(types).not.toContain('pulls_list');
    expect(Buffer.byteLength(types)).toBeLessThan(40_000);

    const declarationFile = join(work, 'cyrnel.d.ts');
    const usageFile = join(work, 'usage.ts');
    await writeFile(declarationFile, types);
    await writeFile(usageFile, `export {};\n${CODE}`);
    const program = ts.createProgram([declarationFile, usageFile], {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      lib: ['lib.es2023.d.ts'],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);

    const run = await cyrnel.client.processes.create({ code: CODE, wait: true });
    expect(run.error).toBeNull();
    expect(run.exitState).toBe('success');
    expect(run.output).toEqual({
      repo: 'octo/hello',
      stars: 42,
      number: 12,
      title: 'Bug',
      author: 'octocat',
    });
    expect(received).toEqual([
      'GET /repos/octo/hello',
      'POST /repos/octo/hello/issues',
      'GET /repos/octo/hello/issues/12',
    ]);
  });

  it('a sandbox process finds issues_create by search and reads its types with cyrnel.discover', async () => {
    const run = await cyrnel.client.processes.create({
      code: `
const found = await cyrnel.discover.tools({ query: 'create issue' });
const types = await cyrnel.discover.types({ tools: ['github.' + found[0]!.toolId] });
cyrnel.output({ first: found[0]!.toolId, service: found[0]!.serviceId, types });
`,
      wait: true,
    });
    expect(run.error).toBeNull();
    const output = run.output as { first: string; service: string; types: string };
    expect(output.first).toBe('issues_create');
    expect(output.service).toBe('github');
    expect(output.types).toContain('issues_create: { invoke(');
    expect(output.types).not.toContain('issues_get');
  });
});
