import { join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, recordRefusals, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { installNotes, type NotesUpstream, startNotesUpstream } from '../support/notes-upstream';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const KEY = 'ui-keys-bootstrap';
// Names a person typed: were they parsed as HTML, the images' handlers would set `pwned`.
const PERSON = 'Ada <img src=x onerror="globalThis.pwned=1">';
const KEY_NAME = '<b>laptop</b> <img src=y onerror="globalThis.pwned=2">';

let work: string;
let cyrnel: CyrnelServer;
let notes: NotesUpstream;
let admin: CyrnelClient;
let browser: Browser;
let page: Page;
let created: string;
let principalId: string;
const problems: string[] = [];
// The browser's `POST /keys` requests: a scope that is not JSON must not cost one.
let keyPosts = 0;
// Every answer of 400 or more but the 401s, as `status METHOD path`.
const refused: string[] = [];

const shot = (name: string) => screenshot(page, name);

async function expectNoHtmlFromNames() {
  await expect(page.locator('main img, main b').count()).resolves.toBe(0);
  await expect(page.evaluate('globalThis.pwned')).resolves.toBeUndefined();
}

const principalRow = () => page.getByTestId('principal-row').filter({ hasText: PERSON });

beforeAll(async () => {
  work = await uiWorkspace('keys');
  notes = await startNotesUpstream();
  cyrnel = await startCyrnel(join(work, 'data'), { CYRNEL_API_KEY: KEY });
  admin = createClient({ baseUrl: cyrnel.url, apiKey: KEY });
  await installNotes(admin, notes);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: cyrnel.url });
  page = await context.newPage();
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/keys') keyPosts += 1;
  });
  recordRefusals(page, refused);
  // 401s: the page's probes without a key (the sign-in page asks whether the server needs one).
  recordProblems(page, problems, /status of 401\b/);
}, 60_000);
afterAll(() => closeUi({ browser, cyrnel, also: [notes], work }));

describe('API keys in the admin UI, in headless Chromium', () => {
  it('creates a principal, listed with its kind and no key', async () => {
    await page.goto(`${cyrnel.url}/ui/`);
    await signIn(page, KEY);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const form = page.getByRole('form', { name: 'New principal' });
    await form.getByLabel('Name').fill(PERSON);
    await form.getByLabel('Kind').selectOption('person');
    await form.getByRole('button', { name: 'Create the principal' }).click();
    await principalRow().waitFor();
    await expect(principalRow().textContent()).resolves.toContain('person');
    await expect(principalRow().getByTestId('principal-keys').textContent()).resolves.toBe('0');
    const [principal] = (await admin.principals.list()).items;
    expect(principal).toMatchObject({ name: PERSON, kind: 'person', keyCount: 0 });
    principalId = principal?.id ?? '';
    await expectNoHtmlFromNames();
  });

  it("refuses a scope that is not JSON without a request, and shows the server's 400 for an unknown service", async () => {
    const form = page.getByRole('form', { name: 'New key' });
    await form.getByLabel('Name').fill('typo');
    await form.getByLabel('Scope (JSON, optional)').fill('{ "services": ');
    await form.getByRole('button', { name: 'Create the key' }).click();
    await form.getByRole('alert').filter({ hasText: 'The scope is not JSON' }).waitFor();
    expect(keyPosts).toBe(0);
    await form.getByLabel('Scope (JSON, optional)').fill('{ "services": ["nope"] }');
    await form.getByRole('button', { name: 'Create the key' }).click();
    await form.getByRole('alert').filter({ hasText: 'services or tools that do not exist: nope' }).waitFor();
    await expect(form.getByRole('alert').textContent()).resolves.toContain('invalid_request');
    await expect(page.getByTestId('key-issues').textContent()).resolves.toContain('unknown nope');
    expect(keyPosts).toBe(1);
    expect((await admin.keys.list()).items).toEqual([]);
  });

  it('creates an agent key for the principal with a scope, and shows the key once with a copy button', async () => {
    const form = page.getByRole('form', { name: 'New key' });
    await form.getByLabel('Name').fill(KEY_NAME);
    await form.getByLabel('Role').selectOption('agent');
    await form.getByLabel('Principal').selectOption({ label: `${PERSON} (person)` });
    await form.getByLabel('Scope (JSON, optional)').fill('{ "services": ["notes"] }');
    await form.getByLabel('Policy (JSON, optional)').fill('{ "tools": { "notes.createNote": "block" } }');
    await form.getByRole('button', { name: 'Create the key' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    await expect(shown.textContent()).resolves.toContain('copy it now, it is not shown again');
    created = (await page.getByTestId('new-key-value').textContent()) ?? '';
    expect(created).toMatch(/^cyk_[\w-]{43}$/);
    await shown.getByRole('button', { name: 'Copy the key' }).click();
    await shown.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(created);
    await expect(form.getByLabel('Name').inputValue()).resolves.toBe('');
    await expectNoHtmlFromNames();
    await shot('keys-created');
  });

  it('the key works as an agent key within its scope, and may not manage principals', async () => {
    const agent = createClient({ baseUrl: cyrnel.url, apiKey: created });
    const tools = (await agent.tools.list()).items.map((tool) => `${tool.serviceId}.${tool.id}`);
    expect(tools).toContain('notes.listNotes');
    await expect(agent.principals.list()).rejects.toMatchObject({ status: 403, reason: 'forbidden' });
  });

  it('lists the key with its principal, scope, policy and last use; the principal holds one key', async () => {
    const [record] = (await admin.keys.list()).items;
    const row = page.locator(`[data-testid="key-row"][data-id="${record?.id}"]`);
    // Created, never used yet when the list was drawn.
    await expect(row.getByTestId('key-last-used').textContent()).resolves.toBe('never');
    await expect(row.textContent()).resolves.toContain(KEY_NAME);
    await expect(row.textContent()).resolves.toContain(PERSON);
    await expect(row.textContent()).resolves.toContain(record?.prefix);
    await expect(row.getByTestId('key-scope').textContent()).resolves.toBe('services: notes');
    await expect(row.getByTestId('key-policy').textContent()).resolves.toBe('notes.createNote: block');
    await expect(principalRow().getByTestId('principal-keys').textContent()).resolves.toBe('1');
    // Only the prefix in the table; the whole key still in the box above it, until the page is left.
    await expect(row.textContent()).resolves.not.toContain(created);
  });

  it("refuses to delete the principal while the key belongs to it, with the server's message", async () => {
    await principalRow().getByRole('button', { name: 'Delete principal' }).click();
    await principalRow().getByRole('button', { name: 'Really delete principal' }).click();
    const alert = page.getByRole('region', { name: 'Principals' }).getByRole('alert');
    await alert.filter({ hasText: 'still has keys' }).waitFor();
    await expect(alert.textContent()).resolves.toContain('principal_has_keys');
    await expect(principalRow().count()).resolves.toBe(1);
  });

  it('forgets the key once the page is left; the list shows when the key was last used', async () => {
    await page.getByRole('link', { name: 'Services' }).click();
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByTestId('key-row').waitFor();
    await expect(page.getByTestId('new-key').count()).resolves.toBe(0);
    await expect(page.content()).resolves.not.toContain(created);
    // The agent's calls above used it.
    const [record] = (await admin.keys.list()).items;
    expect(record?.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    await expect(page.getByTestId('key-row').getByTestId('key-last-used').textContent()).resolves.toBe(
      record?.lastUsedAt,
    );
  });

  it('revokes the key after asking: it answers 401 from then on', async () => {
    const row = page.getByTestId('key-row');
    await row.getByRole('button', { name: 'Revoke key' }).click();
    await row.getByRole('button', { name: 'Really revoke key' }).click();
    await page.getByText('No stored key').waitFor();
    const agent = createClient({ baseUrl: cyrnel.url, apiKey: created });
    await expect(agent.tools.list()).rejects.toMatchObject({ status: 401 });
    await expect(principalRow().getByTestId('principal-keys').textContent()).resolves.toBe('0');
  });

  it('deletes the principal once it holds no key', async () => {
    await principalRow().getByRole('button', { name: 'Delete principal' }).click();
    await principalRow().getByRole('button', { name: 'Really delete principal' }).click();
    await expect.poll(() => principalRow().count()).toBe(0);
    await expect(admin.principals.get(principalId)).rejects.toMatchObject({ status: 404 });
    await expectNoHtmlFromNames();
  });

  it('tells another role plainly that the Keys page needs an admin key, without asking the server', async () => {
    const { key } = await admin.keys.create({ name: 'reader', role: 'agent' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, key);
    await page.getByTestId('signed-in-as').filter({ hasText: 'signed in with an agent key' }).waitFor();
    await expect(
      page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Keys' }).count(),
    ).resolves.toBe(0);
    await page.evaluate("location.hash = '#/keys'");
    await page.getByTestId('forbidden').filter({ hasText: 'This page needs an admin key' }).waitFor();
    await expect(page.getByRole('form', { name: 'New key' }).count()).resolves.toBe(0);
  });

  it('logged no error in the browser console but the answers the test provoked', async () => {
    expect(refused.sort()).toEqual(['400 POST /keys', `409 DELETE /principals/${principalId}`]);
    expect(problems).toHaveLength(refused.length);
    expect(problems.every((problem) => problem.includes('Failed to load resource'))).toBe(true);
  });
});
