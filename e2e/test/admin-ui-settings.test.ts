import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateIds } from '../support/accessibility';
import { launchChromium, recordProblems, recordRefusals, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const KEY = 'ui-settings-bootstrap';
// Tokens typed into the page: one in a mistake (never to be shown back), one saved.
const TYPO_TOKEN = 'tok-typed-in-a-mistake';
const GOOD_TOKEN = 'tok-saved-as-json';
const WHOAMI = 'const seen = await cyrnel.services.greet.tools.whoami.invoke({}); cyrnel.output(seen.body);';

let work: string;
let cyrnel: CyrnelServer;
let admin: CyrnelClient;
let upstream: Server;
// The headers each request to the upstream had (the run's output has its secrets redacted).
const seen: { authorization: string | null; trace: string | null }[] = [];
let browser: Browser;
let page: Page;
const problems: string[] = [];
const refused: string[] = [];
// The browser's PATCH requests of the service's settings: a mistake must not cost one.
const patches = { secrets: 0, config: 0 };

/**
 * An API that says which `Authorization` and `X-Trace` headers it got. Its document declares an
 * http basic scheme no operation needs, so the service has a nested secret (`basic`) besides the
 * `headers` map.
 */
async function startGreeter(): Promise<{ server: Server; definition: object }> {
  const server = createServer((req, res) => {
    const got = {
      authorization: req.headers.authorization ?? null,
      trace: String(req.headers['x-trace'] ?? '') || null,
    };
    seen.push(got);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(got));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const definition = {
    openapi: '3.0.3',
    info: { title: 'Greeter', version: '1.0.0' },
    servers: [{ url }],
    components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
    paths: {
      '/whoami': {
        get: {
          operationId: 'whoami',
          responses: {
            '200': {
              description: 'The headers it got',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
    },
  };
  return { server, definition };
}

const secretsForm = () => page.getByRole('form', { name: 'Secrets' });
const configForm = () => page.getByRole('form', { name: 'Config' });
const secretHeaders = () => secretsForm().getByLabel(/^headers/);

/** The problem said at `field` (its `aria-describedby` names it). */
async function problemAt(field: Locator): Promise<string> {
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ');
  const id = ids.find((candidate) => candidate.endsWith('-problem'));
  expect(id, 'the field names its problem').toBeDefined();
  return (await page.locator(`[id="${id}"]`).textContent()) ?? '';
}

beforeAll(async () => {
  work = await uiWorkspace('settings');
  const greeter = await startGreeter();
  upstream = greeter.server;
  cyrnel = await startCyrnel(join(work, 'data'), { CYRNEL_API_KEY: KEY });
  admin = createClient({ baseUrl: cyrnel.url, apiKey: KEY });
  await admin.services.install({
    id: 'greet',
    adapter: 'openapi',
    definition: greeter.definition,
    enabled: true,
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('request', (request) => {
    if (request.method() !== 'PATCH') return;
    const path = new URL(request.url()).pathname;
    if (path === '/services/greet/secrets') patches.secrets += 1;
    if (path === '/services/greet/config') patches.config += 1;
  });
  recordRefusals(page, refused);
  // 401s: the page's first probe without a key.
  recordProblems(page, problems, /status of 401\b/);
}, 60_000);
afterAll(() =>
  closeUi({
    browser,
    cyrnel,
    also: [{ close: () => new Promise((resolve) => upstream?.close(resolve)) }],
    work,
  }),
);

describe("a service's secrets and config in the admin UI, in headless Chromium", () => {
  it('shows the headers secret with an example in JSON, and the secret and config fields apart', async () => {
    await page.goto(`${cyrnel.url}/ui/#/services/greet`);
    await signIn(page, KEY);
    await secretHeaders().waitFor();
    const help = await secretsForm().locator('[data-pointer="/headers"] .help').textContent();
    expect(help).toContain('{ "Authorization": "Bearer <token>" }');
    expect(help).not.toContain("{ Authorization: 'Bearer");
    await expect(secretsForm().locator('[data-pointer="/headers"] label').textContent()).resolves.toContain(
      'not set',
    );
    // The config has a `headers` field too: each has an id of its own, and its own label.
    await expect(secretHeaders().getAttribute('id')).resolves.toBe('secrets-headers');
    await expect(
      configForm()
        .getByLabel(/^headers/)
        .getAttribute('id'),
    ).resolves.toBe('config-headers');
    await expect(duplicateIds(page)).resolves.toEqual([]);
  });

  it('refuses the old help example at the field, saying where and giving the JSON form, and sends nothing', async () => {
    await secretHeaders().fill(`{ Authorization: 'Bearer ${TYPO_TOKEN}' }`);
    await secretsForm().getByRole('button', { name: 'Save secrets' }).click();
    await secretsForm().getByRole('alert').filter({ hasText: 'Not saved, nothing was sent' }).waitFor();
    const problem = await problemAt(secretHeaders());
    expect(problem).toContain('headers is not JSON (line 1, column 3: a property name without quotes');
    expect(problem).toContain('In JSON it is written like { "Authorization": "Bearer <token>" }');
    expect(problem).not.toContain(TYPO_TOKEN);
    await expect(secretHeaders().getAttribute('aria-invalid')).resolves.toBe('true');
    // The field to fix has the focus.
    await expect(page.evaluate('document.activeElement.id')).resolves.toBe('secrets-headers');
    await expect(
      secretsForm()
        .getByText(/^saved/)
        .count(),
    ).resolves.toBe(0);
    expect(patches.secrets).toBe(0);
    await expect(admin.services.getSecrets('greet')).resolves.toEqual({ present: [] });
    await screenshot(page, 'settings-not-json');
  });

  it('says there is nothing to save when no field was typed in, and sends nothing', async () => {
    await secretHeaders().fill('');
    await secretsForm().getByRole('button', { name: 'Save secrets' }).click();
    await secretsForm()
      .getByRole('status')
      .filter({ hasText: 'Nothing to save: every field is empty' })
      .waitFor();
    expect(patches.secrets).toBe(0);
  });

  it('refuses a header whose value is not a string, naming the header', async () => {
    await secretHeaders().fill('{ "Authorization": 42 }');
    await secretsForm().getByRole('button', { name: 'Save secrets' }).click();
    await secretsForm().getByRole('alert').filter({ hasText: 'Not saved, nothing was sent' }).waitFor();
    await expect(problemAt(secretHeaders())).resolves.toBe(
      'headers: "Authorization" must be a string (in double quotes), not a number',
    );
    expect(patches.secrets).toBe(0);
  });

  it('saves the headers as JSON: shown set with their names (also after a reload), and a run sends them', async () => {
    await secretHeaders().fill(`{ "Authorization": "Bearer ${GOOD_TOKEN}" }`);
    await secretsForm().getByRole('button', { name: 'Save secrets' }).click();
    await secretsForm().getByText('saved: headers', { exact: true }).waitFor();
    expect(patches.secrets).toBe(1);
    await expect(secretHeaders().inputValue()).resolves.toBe('');
    const label = secretsForm().locator('[data-pointer="/headers"] label');
    await expect(label.textContent()).resolves.toMatch(/headers set \(Authorization\)$/);
    await expect(admin.services.getSecrets('greet')).resolves.toEqual({
      present: ['/headers/Authorization'],
    });
    await admin.processes.run(WHOAMI, { throwOnFailure: true });
    expect(seen.at(-1)).toEqual({ authorization: `Bearer ${GOOD_TOKEN}`, trace: null });
    await page.reload();
    await expect(label.textContent()).resolves.toMatch(/headers set \(Authorization\)$/);
    await expect(page.content()).resolves.not.toContain(GOOD_TOKEN);
  });

  it('a nested secret: each part says whether it is set, and one part alone is refused', async () => {
    const username = secretsForm().getByLabel(/^username/);
    const password = secretsForm().getByLabel(/^password/);
    await expect(username.getAttribute('id')).resolves.toBe('secrets-basic-username');
    await username.fill('ada');
    await secretsForm().getByRole('button', { name: 'Save secrets' }).click();
    await expect
      .poll(() => problemAt(password))
      .toBe('password is required: basic is replaced as a whole when saved');
    expect(patches.secrets).toBe(1);
    await password.fill('s3cret');
    await secretsForm().getByRole('button', { name: 'Save secrets' }).click();
    await secretsForm().getByText('saved: basic', { exact: true }).waitFor();
    expect(patches.secrets).toBe(2);
    for (const part of ['username', 'password']) {
      await expect(
        secretsForm().locator(`[data-pointer="/basic/${part}"] label`).textContent(),
      ).resolves.toMatch(/ set$/);
    }
    // The headers stay as they were: a secret is replaced one top-level name at a time.
    await expect(admin.services.getSecrets('greet')).resolves.toEqual({
      present: ['/basic/password', '/basic/username', '/headers/Authorization'],
    });
  });

  it('checks config numbers, bounds and JSON before sending; an unchanged config sends nothing', async () => {
    const timeout = configForm().getByLabel(/^timeoutMs/);
    const headers = configForm().getByLabel(/^headers/);
    const save = configForm().getByRole('button', { name: 'Save config' });
    await save.click();
    await configForm()
      .getByRole('status')
      .filter({ hasText: 'Nothing to save: no field was changed.' })
      .waitFor();
    await timeout.fill('5s');
    await headers.fill('{ "X-Trace": 1 }');
    await save.click();
    await configForm().getByRole('alert').filter({ hasText: '2 fields need fixing' }).waitFor();
    await expect(problemAt(timeout)).resolves.toBe('timeoutMs is not a number: digits only, e.g. 5000');
    await expect(problemAt(headers)).resolves.toBe(
      'headers: "X-Trace" must be a string (in double quotes), not a number',
    );
    await timeout.fill('0');
    await expect.poll(() => problemAt(timeout)).toBe('timeoutMs must be at least 1');
    expect(patches.config).toBe(0);
    await timeout.fill('5000');
    await headers.fill('{ "X-Trace": "on" }');
    await save.click();
    await configForm().getByText('saved: timeoutMs, headers', { exact: true }).waitFor();
    expect(patches.config).toBe(1);
    await expect(admin.services.getConfig('greet')).resolves.toMatchObject({
      config: { timeoutMs: 5000, headers: { 'X-Trace': 'on' } },
    });
    await admin.processes.run(WHOAMI, { throwOnFailure: true });
    expect(seen.at(-1)).toEqual({ authorization: `Bearer ${GOOD_TOKEN}`, trace: 'on' });
  });

  it('no answer of 400 or more and no error in the browser console', () => {
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
  });
});
