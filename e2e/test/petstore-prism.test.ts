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

    const log = proxy.output().slice(before);
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
    const log = mock.output().slice(before);
    expect(violations(log)).toEqual([]);
    expect(log.match(/The request passed the validation rules/g)).toHaveLength(5);
  });

  it('is checked by a Prism that does see violations, and gates bad input before the wire', async () => {
    // The same Prism refuses a request without the key and with a body off the schema.
    const bad = await fetch(`${mockUrl}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body: JSON.stringify({ name: 'x', status: 'flying' }),
    });
    expect(bad.status).toBe(422);
    await bad.body?.cancel();

    const before = mock.output().length;
    const result = await client.processes.run(
      `try {
        await cyrnel.services.petstore.tools.createPet.invoke({ body: { name: 'x', status: 'flying' } });
      } catch (error) {
        cyrnel.output({ status: error.status, code: error.code });
      }`,
    );
    expect(result.output).toEqual({ status: 400, code: 'invalid_request' });
    expect(mock.output().slice(before)).not.toMatch(/Request received/);
  });
});
