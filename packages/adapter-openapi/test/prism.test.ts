import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Installed, install } from './harness';
import { useSchemaChecker } from './schema-check';

const checker = useSchemaChecker();

const require = createRequire(import.meta.url);
const examples = dirname(require.resolve('@readme/oas-examples/package.json'));
const prismBin = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'prism');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// `--errors` turns every request-validation failure into a 422 (or 401 for auth) instead of a mock.
async function startPrism(
  document: string,
): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const port = await freePort();
  const child = spawn(prismBin, ['mock', '--errors', '-h', '127.0.0.1', '-p', String(port), document], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${log}`)), 45_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`prism exited with ${code}:\n${log}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, log: () => log };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const SECRETS = { petstore_auth: 'oauth-token', api_key: 'special-key' };
const PET = {
  name: 'doggie',
  photoUrls: ['https://example.com/a.png'],
  status: 'available',
  category: { id: 1, name: 'dogs' },
  tags: [{ id: 1, name: 't' }],
};
const USER = {
  id: 1,
  username: 'u1',
  firstName: 'A',
  lastName: 'B',
  email: 'a@b.c',
  password: 'p',
  phone: '1',
  userStatus: 1,
};

let prism3: Awaited<ReturnType<typeof startPrism>> | undefined;
let prism2: Awaited<ReturnType<typeof startPrism>> | undefined;
let v3: Installed;
let v2: Installed;

beforeAll(async () => {
  const doc3 = join(examples, '3.0/json/petstore.json');
  // Swagger 2.0 leaves the body media type open when `consumes` is absent; prism then accepts no body
  // at all, while the adapter sends JSON. Declaring `consumes` once makes both read the same contract.
  const yaml = readFileSync(join(examples, '2.0/yaml/petstore.yaml'), 'utf8');
  const doc2 = join(mkdtempSync(join(tmpdir(), 'cyrnel-prism-')), 'petstore.yaml');
  writeFileSync(doc2, yaml.replace(/^host:/m, 'consumes:\n  - application/json\nhost:'));
  [prism3, prism2] = await Promise.all([startPrism(doc3), startPrism(doc2)]);
  v3 = await install(checker, readFileSync(doc3, 'utf8'), { baseUrl: prism3.url }, SECRETS);
  v2 = await install(checker, readFileSync(doc2, 'utf8'), { baseUrl: prism2.url }, SECRETS);
}, 60_000);

afterAll(async () => {
  await v3?.adapter.teardown();
  await v2?.adapter.teardown();
  await Promise.all([stop(prism3?.child), stop(prism2?.child)]);
});

const calls: Array<[string, Record<string, unknown>]> = [
  ['addPet', { body: PET }],
  ['updatePet', { body: { ...PET, id: 3 } }],
  ['findPetsByStatus', { query: { status: ['available', 'sold'] } }],
  ['findPetsByTags', { query: { tags: ['a', 'b'] } }],
  ['getPetById', { path: { petId: 7 } }],
  ['updatePetWithForm', { path: { petId: 7 }, body: { name: 'rex', status: 'sold' } }],
  ['deletePet', { path: { petId: 7 }, headers: { api_key: 'k' } }],
  ['getInventory', {}],
  [
    'placeOrder',
    {
      body: {
        id: 1,
        petId: 2,
        quantity: 1,
        shipDate: '2020-01-01T00:00:00Z',
        status: 'placed',
        complete: false,
      },
    },
  ],
  ['getOrderById', { path: { orderId: 5 } }],
  ['deleteOrder', { path: { orderId: 5 } }],
  ['createUser', { body: USER }],
  ['createUsersWithArrayInput', { body: [USER, USER] }],
  ['loginUser', { query: { username: 'u1', password: 'p w&x' } }],
  ['logoutUser', {}],
  ['getUserByName', { path: { username: 'user 1' } }],
  ['updateUser', { path: { username: 'u1' }, body: USER }],
  ['deleteUser', { path: { username: 'u1' } }],
];

function assertAccepted(name: string, result: { status: number; body: unknown }): void {
  // With --errors prism answers 422 (or 401 for missing auth) with a `validation` list when a request
  // breaks the document; otherwise it picks a documented response (petstore documents some 4xx only).
  expect({ name, status: result.status }).not.toMatchObject({
    status: expect.toSatisfy((s: number) => s === 422 || s === 401),
  });
  expect(JSON.stringify(result.body ?? null)).not.toContain('"validation"');
}

describe('against a validating prism mock', () => {
  it('does invoke OpenAPI 3.0 petstore tools without request-validation errors', async () => {
    for (const [toolId, parameters] of calls) assertAccepted(toolId, await v3.call(toolId, parameters));
    const upload = await v3.call('uploadFile', {
      path: { petId: 1 },
      body: { additionalMetadata: 'm', file: 'text file' },
    });
    assertAccepted('uploadFile', upload);
    expect(prism3?.log()).not.toContain('Request did not pass the validation rules');
  });

  it('does invoke Swagger 2.0 petstore tools (formData, multipart, collectionFormat) without validation errors', async () => {
    for (const [toolId, parameters] of calls) assertAccepted(toolId, await v2.call(toolId, parameters));
    const upload = await v2.call('uploadFile', {
      path: { petId: 1 },
      body: {
        additionalMetadata: 'm',
        file: { base64: Buffer.from('png').toString('base64'), filename: 'a.png' },
      },
    });
    assertAccepted('uploadFile', upload);
    expect(prism2?.log()).not.toContain('Request did not pass the validation rules');
  });

  it('does get a 422 from prism for a request that breaks the document (the check is live)', async () => {
    const raw = await v3.adapter.invoke({
      serviceId: 'svc',
      toolId: 'addPet',
      parameters: { body: { name: 1 } },
    });
    expect((raw as { status: number }).status).toBe(422);
  });
});
