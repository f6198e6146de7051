import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CyrnelClient } from '@cyrnel/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { freePort } from '../support/free-port';
import { answers, type Program, startProgram } from '../support/program';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const BIN = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));
const API_KEY = 'pet-key-1';

// Creates, reads, updates and deletes through cyrnel tools; every step's status is output.
const CRUD = `
const pets = cyrnel.services.petstore.tools;
const created = await pets.createPet.invoke({ body: { name: 'Nemo', tag: 'fish', status: 'available' } });
const id = created.body.id;
const read = await pets.getPet.invoke({ path: { petId: id } });
const updated = await pets.updatePet.invoke({ path: { petId: id }, body: { name: 'Nemo', tag: 'fish', status: 'sold' } });
const removed = await pets.deletePet.invoke({ path: { petId: 1 } });
const fish = await pets.listPets.invoke({ query: { tag: 'fish' } });
cyrnel.output({
  statuses: [created.status, read.status, updated.status, removed.status, fish.status],
  id,
  read: read.body,
  updated: updated.body,
  fish: fish.body,
});
`;

interface Crud {
  statuses: number[];
  id: number;
  read: Record<string, unknown>;
  updated: Record<string, unknown>;
  fish: Record<string, unknown>[];
}

let work: string;
let jsonServer: Program;
let jsonServerUrl: string;
let proxy: Program;
let proxyUrl: string;
let mock: Program;
let mockUrl: string;
let cyrnel: CyrnelServer;
let client: CyrnelClient;

async function startPrism(mode: 'mock' | 'proxy', upstream?: string): Promise<[Program, string]> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [mode, '-h', '127.0.0.1', '-p', String(port), '--errors', join(FIXTURES, 'petstore.yaml')];
  const program = await startProgram({
    name: `prism ${mode}`,
    command: join(BIN, 'prism'),
    args: upstream === undefined ? args : [...args, upstream],
    ready: answers(`${url}/`),
  });
  return [program, url];
}

async function runCrud(): Promise<Crud> {
  const result = await client.processes.run(CRUD, { throwOnFailure: true, ref: 'petstore-crud' });
  return result.output as unknown as Crud;
}

/**
 * Prism's log since `from`, once it holds `count` lines matching `pattern`: Prism writes its
 * log after answering, so reading it right after a response can miss the last lines. Gives up
 * after 10 s and returns what is there (the caller's assertion then shows it).
 */
async function logOf(program: Program, from: number, pattern: RegExp, count = 1): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const log = program.output().slice(from);
    const seen = log.split('\n').filter((line) => pattern.test(line)).length;
    if (seen >= count || Date.now() > deadline) return log;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function violations(output: string): string[] {
  return output.split('\n').filter((line) => /✖|Violation|UNPROCESSABLE|UNAUTHORIZED/.test(line));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-petstore-'));
  await copyFile(join(FIXTURES, 'petstore-db.json'), join(work, 'db.json'));
  const port = await freePort();
  jsonServerUrl = `http://127.0.0.1:${port}`;
  jsonServer = await startProgram({
    name: 'json-server',
    command: join(BIN, 'json-server'),
    args: ['--host', '127.0.0.1', '--port', String(port), join(work, 'db.json')],
    ready: answers(`${jsonServerUrl}/pets`),
  });
  [proxy, proxyUrl] = await startPrism('proxy', jsonServerUrl);
  [mock, mockUrl] = await startPrism('mock');
  cyrnel = await startCyrnel(join(work, 'cyrnel'));
  client = cyrnel.client;
  await client.services.install({
    id: 'petstore',
    adapter: 'openapi',
    definition: await readFile(join(FIXTURES, 'petstore.yaml'), 'utf8'),
    config: { baseUrl: proxyUrl },
    secrets: { apiKey: API_KEY },
    enabled: true,
  });
});

afterAll(async () => {
  await cyrnel?.program.stop();
  await mock?.stop();
  await proxy?.stop();
  await jsonServer?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('petstore through Prism', () => {
  it('installs one tool per operation', async () => {
    const ids: string[] = [];
    for await (const tool of client.tools.iterate({ serviceId: 'petstore' })) ids.push(tool.id);
    expect(ids.sort()).toEqual(['createPet', 'deletePet', 'getPet', 'listPets', 'updatePet']);
  });

  it('creates, reads, updates and deletes through the validating proxy into json-server', async () => {
    const before = proxy.output().length;
    const crud = await runCrud();
    expect(crud.statuses).toEqual([201, 200, 200, 200, 200]);
    expect(crud.read).toEqual({ id: crud.id, name: 'Nemo', tag: 'fish', status: 'available' });
    expect(crud.updated).toEqual({ id: crud.id, name: 'Nemo', tag: 'fish', status: 'sold' });
    expect(crud.fish).toEqual([crud.updated]);

    const log = await logOf(proxy, before, /Forwarding "\w+" request/, 5);
    expect(violations(log)).toEqual([]);
    expect(log.match(/Forwarding "\w+" request/g)).toHaveLength(5);

    // The data really changed in json-server.
    const pets = (await (await fetch(`${jsonServerUrl}/pets`)).json()) as { id: number }[];
    expect(pets).toEqual([
      { id: 2, name: 'Tom', tag: 'cat', status: 'pending' },
      { id: crud.id, name: 'Nemo', tag: 'fish', status: 'sold' },
    ]);
    const calls = await client.processes.iterate({ ref: 'petstore-crud' }).next();
    expect(calls.value).toMatchObject({ exitState: 'success' });
  });

  it('passes Prism mock request validation for every call', async () => {
    await client.services.patchConfig('petstore', [{ op: 'replace', path: '/baseUrl', value: mockUrl }]);
    const before = mock.output().length;
    const crud = await runCrud();
    expect(crud.statuses).toEqual([201, 200, 200, 200, 200]);
    const log = await logOf(mock, before, /The request passed the validation rules/, 5);
    expect(violations(log)).toEqual([]);
    expect(log.match(/The request passed the validation rules/g)).toHaveLength(5);
  });

  it('is checked by a Prism that does see violations, and gates bad input before the wire', async () => {
    // The mock refuses a body off the schema, and logs it as a violation.
    const mockStart = mock.output().length;
    const bad = await fetch(`${mockUrl}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body: JSON.stringify({ name: 'x', status: 'flying' }),
    });
    expect(bad.status).toBe(422);
    await bad.body?.cancel();
    // "Request terminated" is the last line Prism logs for a refused request.
    const mockRefusal = violations(await logOf(mock, mockStart, /Request terminated with error/));
    expect(mockRefusal).toContainEqual(expect.stringMatching(/status must be equal to one of/));
    expect(mockRefusal).toContainEqual(expect.stringMatching(/UNPROCESSABLE_ENTITY/));

    // The proxy too: an invalid request is refused with a validation problem, logged as a
    // violation, and never reaches json-server.
    const stored = await (await fetch(`${jsonServerUrl}/pets`)).text();
    const proxyBefore = proxy.output().length;
    const refused = await fetch(`${proxyUrl}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body: JSON.stringify({ name: 'x', status: 'flying' }),
    });
    expect(refused.status).toBe(422);
    const problem = (await refused.json()) as { type?: string; validation?: { location: string[] }[] };
    expect(problem.type).toMatch(/UNPROCESSABLE_ENTITY/);
    expect(problem.validation?.map((v) => v.location.join('.'))).toContain('body.status');
    // The same check the CRUD test runs finds this violation, so its empty result means something.
    const proxyLog = await logOf(proxy, proxyBefore, /Request terminated with error/);
    expect(violations(proxyLog)).toContainEqual(expect.stringMatching(/UNPROCESSABLE_ENTITY/));
    expect(proxyLog).not.toMatch(/Forwarding/);
    expect(await (await fetch(`${jsonServerUrl}/pets`)).text()).toBe(stored);

    const before = mock.output().length;
    const result = await client.processes.run(
      `try {
        await cyrnel.services.petstore.tools.createPet.invoke({ body: { name: 'x', status: 'flying' } });
      } catch (error) {
        cyrnel.output({ status: error.status, code: error.code });
      }`,
    );
    expect(result.output).toEqual({ status: 400, code: 'invalid_request' });
    // Prism logs in order: once a probe sent afterwards is logged, nothing from the run is due.
    const probe = await fetch(`${mockUrl}/pets`, { headers: { 'x-api-key': API_KEY } });
    await probe.body?.cancel();
    const mockLog = await logOf(mock, before, /Request received/);
    expect(mockLog.match(/Request received/g)).toHaveLength(1);
    expect(mockLog).toMatch(/get \/pets/);
  });
});
