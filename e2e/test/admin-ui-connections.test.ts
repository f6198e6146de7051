import { join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import { startTokenUpstream, type TokenUpstream } from '@cyrnel/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, recordRefusals, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const KEY = 'ui-connections-bootstrap';
// A name a person typed: were it parsed as HTML, the image's handler would set `pwned`.
const PERSON = 'Ada <img src=x onerror="globalThis.pwned=1">';
/** The tokens the upstream may see; none of them may ever be on the page after it was sent. */
const TOKENS = {
  shared: 'tok-shared-5d1e9a0c',
  ada: 'tok-ada-2f7b41e8',
  replaced: 'tok-replaced-8c03d6a2',
  duplicate: 'tok-duplicate-61e4f9b7',
  typo: 'tok-typo-a93c0e55',
} as const;

const WHOAMI =
  'const answer = await cyrnel.services.who.tools.whoami.invoke({}); cyrnel.output({ status: answer.status });';

let work: string;
let cyrnel: CyrnelServer;
let upstream: TokenUpstream;
let admin: CyrnelClient;
let browser: Browser;
let page: Page;
let principalId: string;
let adaKey: string;
const problems: string[] = [];
/** The `x-token` of every request the upstream saw. */
const seen = () => upstream.seen.map((request) => request.token);
// The browser's `POST /services/who/connections` requests: secrets that are not JSON must not cost one.
let connectionPosts = 0;
// Every answer of 400 or more but the 401s, as `status METHOD path`.
const refused: string[] = [];

const shot = (name: string) => screenshot(page, name);

/** No token on the page (in its text or its fields), and no element made of the principal's name. */
async function expectNoSecretsOrHtml() {
  const html = await page.content();
  const fields = await page
    .locator('textarea, input')
    .evaluateAll((elements) => elements.map((element) => (element as unknown as { value: string }).value));
  for (const token of Object.values(TOKENS)) {
    expect(html).not.toContain(token);
    expect(fields.join('\n')).not.toContain(token);
  }
  await expect(page.locator('main img').count()).resolves.toBe(0);
  await expect(page.evaluate('globalThis.pwned')).resolves.toBeUndefined();
}

/** Run the whoami tool as Ada's agent key: the token the upstream got. */
async function adaCalls(): Promise<string | undefined> {
  const from = seen().length;
  const ada = createClient({ baseUrl: cyrnel.url, apiKey: adaKey });
  const { output } = await ada.processes.run(WHOAMI, { throwOnFailure: true });
  expect(output).toEqual({ status: 200 });
  expect(seen().length).toBe(from + 1);
  return seen()[from];
}

const row = (name: string) => page.locator(`[data-testid="connection-row"][data-name="${name}"]`);
const newConnection = () => page.getByRole('form', { name: 'New connection' });

beforeAll(async () => {
  work = await uiWorkspace('connections');
  upstream = await startTokenUpstream();
  cyrnel = await startCyrnel(join(work, 'data'), { CYRNEL_API_KEY: KEY });
  admin = createClient({ baseUrl: cyrnel.url, apiKey: KEY });
  await admin.services.install({
    id: 'who',
    adapter: 'openapi',
    definition: upstream.spec(),
    secrets: { token: TOKENS.shared },
    enabled: true,
  });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && path === '/services/who/connections') connectionPosts += 1;
  });
  recordRefusals(page, refused);
  // 401s: the page's probes without a key (the sign-in page asks whether the server needs one).
  recordProblems(page, problems, /status of 401\b/);
}, 60_000);
afterAll(() => closeUi({ browser, cyrnel, also: [upstream], work }));

describe("a service's connections in the admin UI, in headless Chromium", () => {
  it("shows the service's shared default connection: its secret set as a pointer, never its value", async () => {
    await page.goto(`${cyrnel.url}/ui/`);
    await signIn(page, KEY);
    await page.getByRole('link', { name: 'who', exact: true }).click();
    await page.getByRole('link', { name: 'connections', exact: true }).click();
    await page.getByRole('heading', { name: 'Connections of who' }).waitFor();
    expect(page.url()).toMatch(/#\/services\/who\/connections$/);
    const shared = row('default');
    await shared.waitFor();
    await expect(shared.getByTestId('connection-owner').textContent()).resolves.toBe('shared');
    await expect(shared.getByTestId('connection-status').getAttribute('data-status')).resolves.toBe(
      'connected',
    );
    await expect(shared.getByTestId('connection-status').textContent()).resolves.toBe('connected');
    await expect(shared.getByTestId('connection-secrets').textContent()).resolves.toBe('/token');
    const [record] = (await admin.connections.list('who')).items;
    await expect(shared.getByTestId('connection-updated').textContent()).resolves.toBe(record?.updatedAt);
    // No record has an `oauth` field (yet): no authorization column, no Connect button.
    await expect(page.getByRole('columnheader', { name: 'Authorization' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^Connect / }).count()).resolves.toBe(0);
    await expectNoSecretsOrHtml();
  });

  it('creates a principal on the Keys page; the connections page names it as an owner to choose', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    const form = page.getByRole('form', { name: 'New principal' });
    await form.getByLabel('Name').fill(PERSON);
    await form.getByRole('button', { name: 'Create the principal' }).click();
    await page.getByTestId('principal-row').filter({ hasText: PERSON }).waitFor();
    principalId =
      (await admin.principals.list()).items.find((principal) => principal.name === PERSON)?.id ?? '';
    expect(principalId).not.toBe('');
    adaKey = (await admin.keys.create({ name: 'ada agent', role: 'agent', principal: principalId })).key;
    await page.goBack();
    await page.getByRole('heading', { name: 'Connections of who' }).waitFor();
    // The form shows once the page knows the principals.
    await newConnection().waitFor();
    await expect(newConnection().getByLabel('Owner').locator('option').allTextContents()).resolves.toEqual([
      'shared (every principal)',
      `${PERSON} (person)`,
    ]);
    // Ada has no connection of her own yet: her runs use the shared default.
    await expect(adaCalls()).resolves.toBe(TOKENS.shared);
  });

  it('refuses secrets that are not JSON without a request, and without quoting them', async () => {
    await newConnection().getByLabel('Name').fill('ada');
    await newConnection()
      .getByLabel('Owner')
      .selectOption({ label: `${PERSON} (person)` });
    await newConnection().getByLabel('Secrets (JSON, optional)').fill(`{ "token": ${TOKENS.typo} }`);
    await newConnection().getByRole('button', { name: 'Add the connection' }).click();
    const alert = newConnection().getByRole('alert');
    await alert.filter({ hasText: 'The secrets field is not JSON' }).waitFor();
    await expect(alert.textContent()).resolves.not.toContain(TOKENS.typo);
    expect(connectionPosts).toBe(0);
  });

  it("adds a connection owned by the principal: listed with its name, and Ada's runs use it", async () => {
    await newConnection().getByLabel('Secrets (JSON, optional)').fill(`{ "token": "${TOKENS.ada}" }`);
    await newConnection().getByRole('button', { name: 'Add the connection' }).click();
    await row('ada').waitFor();
    expect(connectionPosts).toBe(1);
    await expect(row('ada').getByTestId('connection-owner').textContent()).resolves.toBe(PERSON);
    await expect(row('ada').getByTestId('connection-secrets').textContent()).resolves.toBe('/token');
    await expect(row('ada').getByTestId('connection-status').textContent()).resolves.toBe('connected');
    await expect(newConnection().getByLabel('Name').inputValue()).resolves.toBe('');
    await expect(newConnection().getByLabel('Secrets (JSON, optional)').inputValue()).resolves.toBe('');
    await expect(admin.connections.get('who', 'ada')).resolves.toMatchObject({
      owner: principalId,
      secrets: ['/token'],
    });
    await expect(adaCalls()).resolves.toBe(TOKENS.ada);
    await expectNoSecretsOrHtml();
    await shot('connections');
  });

  it("replaces the connection's secrets: the field empties, the runs use the new token", async () => {
    const before = (await admin.connections.get('who', 'ada')).updatedAt;
    await row('ada').getByRole('button', { name: 'Change connection ada' }).click();
    const panel = page.getByRole('region', { name: 'Connection ada' });
    const replace = panel.getByRole('form', { name: 'Replace the secrets' });
    await replace.getByLabel('New secrets (JSON)').fill(`{ "token": "${TOKENS.replaced}" }`);
    await replace.getByRole('button', { name: 'Replace the secrets' }).click();
    await panel.getByRole('status').filter({ hasText: 'Secrets replaced.' }).waitFor();
    await expect(replace.getByLabel('New secrets (JSON)').inputValue()).resolves.toBe('');
    const after = (await admin.connections.get('who', 'ada')).updatedAt;
    expect(after > before).toBe(true);
    await expect.poll(() => row('ada').getByTestId('connection-updated').textContent()).toBe(after);
    await expect(adaCalls()).resolves.toBe(TOKENS.replaced);
    await expectNoSecretsOrHtml();
  });

  it('shows the 409 of a name in use with its reason, and empties the secrets it sent', async () => {
    await newConnection().getByLabel('Name').fill('ada');
    await newConnection().getByLabel('Secrets (JSON, optional)').fill(`{ "token": "${TOKENS.duplicate}" }`);
    await newConnection().getByRole('button', { name: 'Add the connection' }).click();
    const alert = newConnection().getByRole('alert').filter({ hasText: 'connection_exists' });
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain('ada');
    await expect(newConnection().getByLabel('Secrets (JSON, optional)').inputValue()).resolves.toBe('');
    await expect(newConnection().getByLabel('Name').inputValue()).resolves.toBe('ada');
    await expect(row('ada').count()).resolves.toBe(1);
    await expect(adaCalls()).resolves.toBe(TOKENS.replaced);
    await expectNoSecretsOrHtml();
  });

  it("shows the server's 400 for secrets its schema refuses, with the issue's path", async () => {
    await newConnection().getByLabel('Name').fill('spare');
    await newConnection().getByLabel('Secrets (JSON, optional)').fill('{ "token": 42 }');
    await newConnection().getByRole('button', { name: 'Add the connection' }).click();
    await newConnection().getByRole('alert').filter({ hasText: 'invalid_request' }).waitFor();
    await expect(page.getByTestId('connection-issues').textContent()).resolves.toContain('token');
    await expect(row('spare').count()).resolves.toBe(0);
  });

  it('gives the connection to nobody (shared), then back to Ada; the default stays shared', async () => {
    const panel = page.getByRole('region', { name: 'Connection ada' });
    const owner = panel.getByRole('form', { name: 'Change the owner' });
    await owner.getByLabel('Owner').selectOption({ label: 'shared (every principal)' });
    await owner.getByRole('button', { name: 'Change the owner' }).click();
    await expect.poll(() => row('ada').getByTestId('connection-owner').textContent()).toBe('shared');
    await expect(admin.connections.get('who', 'ada')).resolves.toMatchObject({ owner: null });
    await owner.getByLabel('Owner').selectOption({ label: `${PERSON} (person)` });
    await owner.getByRole('button', { name: 'Change the owner' }).click();
    await expect.poll(() => row('ada').getByTestId('connection-owner').textContent()).toBe(PERSON);
    await expect(admin.connections.get('who', 'ada')).resolves.toMatchObject({ owner: principalId });
    await panel.getByRole('button', { name: 'Close' }).click();
    await row('default').getByRole('button', { name: 'Change connection default' }).click();
    const defaultPanel = page.getByRole('region', { name: 'Connection default' });
    await defaultPanel.getByText('it stays shared').waitFor();
    await expect(defaultPanel.getByRole('form', { name: 'Change the owner' }).count()).resolves.toBe(0);
    await defaultPanel.getByRole('button', { name: 'Close' }).click();
  });

  it('shows the states a run can leave, and a Connect button for a record with an `oauth` field', async () => {
    // No connection of the API has an `oauth` field or another status yet (a later piece adds
    // OAuth connections): the real answer is passed on with them added, so the page is seen to
    // show them once the API gives them.
    const pattern = `${cyrnel.url}/services/who/connections`;
    const changes: Record<string, object> = {
      ada: {
        oauth: { scopes: [] },
        status: 'reauthorization_required',
        statusMessage: 'the refresh token was refused <b>again</b>',
      },
      default: { status: 'error', statusMessage: 'the token endpoint answered 500' },
    };
    await page.route(pattern, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { items: { name: string }[] };
      const items = body.items.map((item) => ({ ...item, ...changes[item.name] }));
      await route.fulfill({ response, json: { ...body, items } });
    });
    const connect = row('ada').getByRole('button', { name: 'Connect ada', exact: true });
    await connect.waitFor();
    await page.getByRole('columnheader', { name: 'Authorization' }).waitFor();
    await expect(row('ada').getByTestId('connection-status').textContent()).resolves.toBe(
      'needs re-authorization the refresh token was refused <b>again</b>',
    );
    await expect(row('default').getByTestId('connection-status').textContent()).resolves.toBe(
      'error the token endpoint answered 500',
    );
    await expect(
      row('default').getByRole('button', { name: 'Connect default', exact: true }).count(),
    ).resolves.toBe(0);
    await expect(page.locator('main b').count()).resolves.toBe(0);
    await shot('connections-states');
    // The record's OAuth state is faked here: the server knows no client for it, and says so.
    await connect.click();
    await row('ada').getByRole('alert').filter({ hasText: 'clientId is required' }).waitFor();
    // A poll's answer may be in the handler right now: it finishes before the route goes (an
    // unroute alone would leave it to fulfil a route that is gone, an unhandled rejection).
    await page.unrouteAll({ behavior: 'wait' });
    // The page asks again every 2 s: the next real answer has neither.
    await expect
      .poll(() => page.getByRole('columnheader', { name: 'Authorization' }).count(), { timeout: 10_000 })
      .toBe(0);
    await expect(row('ada').getByTestId('connection-status').textContent()).resolves.toBe('connected');
  });

  it("deletes the connection after asking: Ada's runs use the shared default again", async () => {
    await row('ada').getByRole('button', { name: 'Delete connection ada' }).click();
    await expect(row('ada').count()).resolves.toBe(1);
    await row('ada').getByRole('button', { name: 'Really delete connection ada' }).click();
    await expect.poll(() => row('ada').count()).toBe(0);
    await expect(admin.connections.get('who', 'ada')).rejects.toMatchObject({
      status: 404,
      reason: 'connection_not_found',
    });
    await expect(adaCalls()).resolves.toBe(TOKENS.shared);
    await expectNoSecretsOrHtml();
  });

  it('shows an agent key its own and the shared connections, its owner as an id, and no owner to choose', async () => {
    await admin.connections.create('who', {
      name: 'mine',
      owner: principalId,
      secrets: { token: TOKENS.ada },
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, adaKey);
    await page.goto(`${cyrnel.url}/ui/#/services/who/connections`);
    await row('mine').waitFor();
    await newConnection().waitFor();
    await expect(row('mine').getByTestId('connection-owner').textContent()).resolves.toBe(principalId);
    await expect(row('default').getByTestId('connection-owner').textContent()).resolves.toBe('shared');
    await expect(newConnection().getByLabel('Owner').locator('option').allTextContents()).resolves.toEqual([
      "this key's principal",
    ]);
    await row('mine').getByRole('button', { name: 'Change connection mine' }).click();
    await page.getByText('Only an admin key gives a connection to another owner.').waitFor();
    await expectNoSecretsOrHtml();
  });

  it('logged no error in the browser console but the answers the test provoked', async () => {
    expect(refused.sort()).toEqual([
      '400 POST /services/who/connections',
      // Connect on a connection the page was told has OAuth state the server has not: no client id.
      '400 POST /services/who/connections/ada/authorize',
      // Knowing the agent key's role (asked at sign-in), the page asks neither the service's
      // detail nor the principals, which it may not read: no 403 at all.
      '409 POST /services/who/connections',
    ]);
    expect(problems).toHaveLength(refused.length);
    expect(problems.every((problem) => problem.includes('Failed to load resource'))).toBe(true);
  });
});
