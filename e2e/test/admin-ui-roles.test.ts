import { join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, recordRefusals, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { installNotes, type NotesUpstream, startNotesUpstream } from '../support/notes-upstream';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const KEY = 'ui-roles-bootstrap';
// The API paths only an admin key may use, whose pages an agent key must not even ask for (its
// role it asks `GET /me`, not a route it may not use).
const ADMIN_ONLY =
  /^\/(services(\/[^/]+)?|services\/[^/]+\/stats|modules(\/.*)?|principals(\/.*)?|keys(\/.*)?|metrics|logs)$/;

let work: string;
let cyrnel: CyrnelServer;
let notes: NotesUpstream;
let admin: CyrnelClient;
let agentKey: string;
let approverKey: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const refused: string[] = [];
// Requests the page made to admin-only API paths, as `METHOD path`.
const adminRequests: string[] = [];

const navigation = () => page.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents();

async function signInAs(key: string, role: 'agent' | 'approver') {
  await signIn(page, key);
  await page
    .getByTestId('signed-in-as')
    .filter({ hasText: `signed in with an ${role} key` })
    .waitFor();
}

beforeAll(async () => {
  work = await uiWorkspace('roles');
  notes = await startNotesUpstream();
  cyrnel = await startCyrnel(join(work, 'data'), { CYRNEL_API_KEY: KEY });
  admin = createClient({ baseUrl: cyrnel.url, apiKey: KEY });
  await installNotes(admin, notes);
  agentKey = (await admin.keys.create({ name: 'bot', role: 'agent' })).key;
  approverKey = (await admin.keys.create({ name: 'reviewer', role: 'approver' })).key;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (ADMIN_ONLY.test(path)) adminRequests.push(`${request.method()} ${path}`);
  });
  recordRefusals(page, refused);
  // 401s: the page's first probes without a key.
  recordProblems(page, problems, /status of 401\b/);
}, 60_000);
afterAll(() => closeUi({ browser, cyrnel, also: [notes], work }));

describe('what a key that is not an admin key sees in the admin UI, in headless Chromium', () => {
  it('an agent key: only the pages it may open, starting at the tools', async () => {
    await page.goto(`${cyrnel.url}/ui/`);
    await signInAs(agentKey, 'agent');
    await page.getByRole('heading', { name: 'Tools' }).waitFor();
    await expect(navigation()).resolves.toEqual(['Tools', 'Playground', 'Processes', 'Connect']);
    await page.getByRole('link', { name: 'notes.listNotes' }).waitFor();
    // The header's status asks nothing an agent key may not read.
    await page
      .getByTestId('status')
      .filter({ hasText: /^healthy · API \d+\.\d+\.\d+$/ })
      .waitFor();
    await screenshot(page, 'agent-tools');
  });

  it('a page the agent key may not open says so at once, names the key it needs, and asks the server nothing', async () => {
    const pages: [hash: string, heading: string, needs: string][] = [
      ['services', 'Services', 'an admin key'],
      ['services/notes', 'Services', 'an admin key'],
      ['modules', 'Modules', 'an admin key'],
      ['modules/openapi', 'Modules', 'an admin key'],
      ['keys', 'Keys', 'an admin key'],
      ['dashboard', 'Dashboard', 'an admin key'],
      ['approvals', 'Approvals', 'an approver or admin key'],
    ];
    for (const [hash, heading, needs] of pages) {
      await page.evaluate(`location.hash = '#/${hash}'`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      const said = page.getByTestId('forbidden');
      await expect(said.textContent()).resolves.toBe(
        `This page needs ${needs}; you signed in with an agent key, which may not open it. Sign out and sign in with such a key to use it.`,
      );
      await expect(page.locator('main').textContent()).resolves.not.toMatch(/Loading|forbidden \(/);
      await expect(page.locator('main').getByRole('link', { name: 'Tools' }).count()).resolves.toBe(1);
    }
    await screenshot(page, 'agent-forbidden');
    expect(adminRequests).toEqual([]);
  });

  it("an agent key's tool page shows whether the tool is callable, without the admin's Enable button", async () => {
    await page.evaluate(`location.hash = '#/tools/notes/listNotes'`);
    await page.getByTestId('tool-callable').filter({ hasText: 'callable' }).waitFor();
    await expect(page.getByRole('button', { name: /^(Enable|Disable)$/ }).count()).resolves.toBe(0);
    // Its own connections are the agent's to see (the service's page is not).
    await page.evaluate(`location.hash = '#/services/notes/connections'`);
    await page.getByRole('heading', { name: 'Connections of notes' }).waitFor();
    await expect(page.getByRole('link', { name: 'Back to the service' }).count()).resolves.toBe(0);
    expect(adminRequests).toEqual([]);
  });

  it('an approver key also opens the approvals', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInAs(approverKey, 'approver');
    await expect(navigation()).resolves.toEqual(['Tools', 'Playground', 'Processes', 'Approvals', 'Connect']);
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByTestId('no-pending').waitFor();
    await page.evaluate(`location.hash = '#/keys'`);
    await page.getByTestId('forbidden').filter({ hasText: 'you signed in with an approver key' }).waitFor();
    expect(adminRequests).toEqual([]);
  });

  it('was refused nothing and logged no error in the browser console: the sign-ins asked who the key is', () => {
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
  });
});
