import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CyrnelClient } from '@cyrnel/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import {
  type EchoBody,
  type EchoUpstream,
  httpbinRequired,
  startEchoUpstream,
} from '../support/echo-upstream';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const SECRETS = {
  bearer: 'tok-123',
  basic: { username: 'ada', password: 'p@ss word:1' },
  queryKey: 'q k&1',
  headerKey: 'hk-1',
};

interface Echoed {
  status: number;
  body: EchoBody;
}

let work: string;
let echo: EchoUpstream;
let cyrnel: CyrnelServer;
let client: CyrnelClient;
let item: Echoed;
let form: Echoed;
let keys: Echoed;
let teapot: { status: number };

// Header names as lower case: httpbin (werkzeug) title-cases them, node lower-cases them.
function headers(echoed: Echoed): Record<string, string> {
  return Object.fromEntries(
    Object.entries(echoed.body.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-echo-'));
  echo = await startEchoUpstream();
  cyrnel = await startCyrnel(join(work, 'cyrnel'));
  client = cyrnel.client;
  await client.services.install({
    id: 'echo',
    adapter: 'openapi',
    definition: await readFile(join(FIXTURES, 'echo.yaml'), 'utf8'),
    config: { baseUrl: echo.url, headers: { 'X-Static': 'yes' } },
    secrets: SECRETS,
    enabled: true,
  });
  // One process drives every tool: HTTP → core → sandbox → adapter → wire and back.
  const result = await client.processes.run(
    `const echo = cyrnel.services.echo.tools;
     const item = await echo.postItem.invoke({
       path: { itemId: 'a b/c?d' },
       query: { tags: ['x', 'y z'], ids: [1, 2, 3], filter: { color: 'red', size: 2 } },
       headers: { 'X-Trace': 'trace-1' },
       cookies: { session: 'abc' },
       body: { name: 'Zoë', count: 3, nested: { list: [1.5, 2] } },
     });
     const form = await echo.postForm.invoke({ body: { name: 'a&b', count: 3, colors: ['red', 'blue'] } });
     const keys = await echo.getWithKeys.invoke({ query: { label: 'l' } });
     const teapot = await echo.status.invoke({ path: { code: 418 } });
     cyrnel.output({ item, form, keys, teapot: { status: teapot.status } });`,
    { throwOnFailure: true, ref: 'echo' },
  );
  ({ item, form, keys, teapot } = result.output as {
    item: Echoed;
    form: Echoed;
    keys: Echoed;
    teapot: { status: number };
  });
});

afterAll(async () => {
  await cyrnel?.program.stop();
  await echo?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('serialisation through the whole stack', () => {
  it('talks to the echo upstream: httpbin whenever CI has it', () => {
    // Which upstream ran is part of the result: the node fallback proves less (it is ours).
    console.info(`echo upstream: ${echo.kind} (${echo.url})`);
    expect(['httpbin', 'node']).toContain(echo.kind);
    if (httpbinRequired()) expect(echo.kind).toBe('httpbin');
    // httpbin's access log shows the calls the process made really reached it.
    if (echo.kind === 'httpbin') expect(echo.output()).toMatch(/POST \/anything\/items\//);
  });

  it('requires httpbin only on CI with an importable system httpbin, unless the fallback is forced', () => {
    expect(httpbinRequired({})).toBe(false);
    expect(httpbinRequired({ CI: '' })).toBe(false);
    expect(httpbinRequired({ CI: 'true', CYRNEL_E2E_ECHO: 'node' })).toBe(false);
    // On CI it follows what the system python can import.
    const systemHttpbin = spawnSync('/usr/bin/python3', ['-c', 'import httpbin.core']).status === 0;
    expect(httpbinRequired({ CI: 'true' })).toBe(systemHttpbin);
  });

  it('encodes path parameters and serialises query styles', () => {
    expect(item.status).toBe(200);
    expect(item.body.method).toBe('POST');
    // WSGI hands httpbin a decoded path, so it re-encodes `%2F` as `/`; the node echo shows the
    // raw wire. Either way `?` stayed in the path, encoded.
    const wire = echo.kind === 'node' ? '/anything/items/a%20b%2Fc%3Fd' : '/anything/items/a%20b/c%3Fd';
    expect(new URL(item.body.url).pathname).toBe(wire);
    expect(item.body.args).toEqual({
      tags: ['x', 'y z'],
      ids: '1,2,3',
      'filter[color]': 'red',
      'filter[size]': '2',
    });
  });

  it('sends header and cookie parameters, config headers and the bearer secret', () => {
    const sent = headers(item);
    expect(sent['x-trace']).toBe('trace-1');
    expect(sent.cookie).toBe('session=abc');
    expect(sent['x-static']).toBe('yes');
    // The echo hands the secret back: the code sees it masked, exactly where it was sent.
    expect(sent.authorization).toBe('Bearer ***');
    expect(sent['content-type']).toMatch(/^application\/json/);
  });

  it('sends the JSON body unchanged, UTF-8 included', () => {
    expect(item.body.json).toEqual({ name: 'Zoë', count: 3, nested: { list: [1.5, 2] } });
  });

  it('sends form bodies with exploded arrays and basic auth', () => {
    expect(form.status).toBe(200);
    expect(form.body.form).toEqual({ name: 'a&b', count: '3', colors: ['red', 'blue'] });
    expect(headers(form)['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(headers(form).authorization).toBe(`Basic ${btoa('ada:p@ss word:1')}`);
  });

  it('applies API keys in the query and in a header together', () => {
    // Echoed credentials reach the code masked, each exactly where it was sent.
    expect(keys.body.args).toEqual({ label: 'l', api_key: '***' });
    expect(headers(keys)['x-api-key']).toBe('***');
    expect(headers(keys).authorization).toBeUndefined();
  });

  it('returns non-2xx statuses instead of throwing', () => {
    expect(teapot.status).toBe(418);
  });

  it('records the calls and never hands the secrets back', async () => {
    const [process] = (await client.processes.list({ ref: 'echo' })).items;
    const calls = await client.processes.calls(process?.id ?? 0);
    expect(calls.items.map((c) => [c.toolId, c.ok])).toEqual([
      ['postItem', true],
      ['postForm', true],
      ['getWithKeys', true],
      ['status', true],
    ]);
    expect((await client.services.getSecrets('echo')).present.sort()).toEqual([
      '/basic/password',
      '/basic/username',
      '/bearer',
      '/headerKey',
      '/queryKey',
    ]);
    const visible = JSON.stringify([
      await client.services.get('echo'),
      await client.services.getConfig('echo'),
      await client.tools.get('echo', 'postItem'),
    ]);
    for (const secret of ['tok-123', 'p@ss word:1', 'q k&1', 'hk-1']) expect(visible).not.toContain(secret);
    expect(cyrnel.program.output()).not.toContain('tok-123');
  });
});
