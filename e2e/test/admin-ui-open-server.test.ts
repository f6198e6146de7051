import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, recordRefusals, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

let work: string;
let cyrnel: CyrnelServer;
let browser: Browser;
let page: Page;
let created = '';
const problems: string[] = [];
const refused: string[] = [];

beforeAll(async () => {
  work = await uiWorkspace('open');
  // No key at all: a local server as it first starts.
  cyrnel = await startCyrnel(join(work, 'data'));
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: cyrnel.url });
  page = await context.newPage();
  recordRefusals(page, refused);
  // 401s: the probes without a key once the server has one, and the wrong key typed on purpose.
  recordProblems(page, problems, /status of 401\b/);
}, 60_000);
afterAll(() => closeUi({ browser, cyrnel, work }));

describe('the admin UI of a server without keys, in headless Chromium', () => {
  it('opens without a key: it says none is needed, and offers no sign-out', async () => {
    await page.goto(`${cyrnel.url}/ui/`);
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe('open server: no key needed');
    await expect(page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0);
  });

  it('has an icon, also at /favicon.ico, served without a key', async () => {
    const href = await page.evaluate<string>(`document.querySelector('link[rel="icon"]').href`);
    expect(href).toBe(`${cyrnel.url}/ui/favicon.svg`);
    const icon = await fetch(href);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    const body = await icon.text();
    expect(body).toMatch(/^<svg /);
    const root = await fetch(`${cyrnel.url}/favicon.ico`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toBe('image/svg+xml');
    await expect(root.text()).resolves.toBe(body);
  });

  it('the first key: shown once and kept on the page while the page says the server now asks for one', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    await page
      .getByTestId('open-server-note')
      .filter({ hasText: 'create an admin key for yourself first' })
      .waitFor();
    const form = page.getByRole('form', { name: 'New key' });
    await form.getByLabel('Name').fill('me');
    await form.getByLabel('Role').selectOption('admin');
    await form.getByRole('button', { name: 'Create the key' }).click();
    await page.getByTestId('new-key').waitFor();
    created = (await page.getByTestId('new-key-value').textContent()) ?? '';
    expect(created).toMatch(/^cyk_/);
    // The page's next request without a key is refused: it says so, and the key stays to be copied.
    await page.getByTestId('key-refused').filter({ hasText: 'The server now asks for an API key' }).waitFor();
    await page.getByTestId('new-key').getByRole('button', { name: 'Copy the key' }).click();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(created);
    await screenshot(page, 'open-first-key');
  });

  it('then asks for a key: a wrong one is refused, the new one signs in', async () => {
    await page.getByRole('button', { name: 'Sign in with a key' }).click();
    await page.getByLabel('API key').fill('anything');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'unauthorized' }).waitFor();
    await signIn(page, created);
    await page.getByTestId('signed-in-as').filter({ hasText: 'signed in with an admin key' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
  });

  it('the sign-in page of a server that has no key again takes none: it says there is nothing to enter', async () => {
    // The same address, a new data directory: no key stored, none given.
    const before = problems.length;
    await cyrnel.program.stop();
    cyrnel = await startCyrnel(join(work, 'data-again'), {}, cyrnel.port);
    // A request the page made while nothing listened (the restart's gap; long on a busy machine)
    // is logged by the browser itself: that one is expected, anything else still counts.
    const gap = problems.splice(before);
    problems.push(...gap.filter((problem) => !problem.includes('net::ERR_CONNECTION_REFUSED')));
    await page.getByLabel('API key').fill('anything at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const open = page.getByTestId('open-server');
    await open.filter({ hasText: 'This server has no API key: there is no key to enter.' }).waitFor();
    await expect(page.getByLabel('API key').count()).resolves.toBe(0);
    await screenshot(page, 'open-sign-in');
    await open.getByRole('button', { name: 'Open the admin UI' }).click();
    await page.getByTestId('signed-in-as').filter({ hasText: 'open server: no key needed' }).waitFor();
  });

  it('answered nothing of 400 or more but the 401s of a server that asks for a key', () => {
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
  });
});
