import { join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import type { ProcessResult } from '@cyrnel/sdk/api';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateIds, seriousViolations } from '../support/accessibility';
import { launchChromium, recordProblems, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { installNotes, type NotesUpstream, startNotesUpstream } from '../support/notes-upstream';
import { closeUi, uiWorkspace } from '../support/ui-session';

const KEY = 'ui-a11y-bootstrap';
// A read (allowed) and a write, which waits for a person: the approval and process pages have content.
const PROGRAM = [
  'const before = await cyrnel.services.notes.tools.listNotes.invoke({});',
  "const created = await cyrnel.services.notes.tools.createNote.invoke({ body: { text: 'hello' } });",
  'cyrnel.output({ id: created.body.id, before: before.body.length });',
].join('\n');

let work: string;
let cyrnel: CyrnelServer;
let notes: NotesUpstream;
let admin: CyrnelClient;
let agentKey: string;
let browser: Browser;
let page: Page;
let waiting: Promise<ProcessResult>;
let processId: number;
let approvalId: string | undefined;
const problems: string[] = [];
// What each page was checked in: its hash and state, for the assertions' messages.
const checked: string[] = [];

/** axe finds no serious or critical violation on the page as it is now, and no id is used twice. */
async function expectAccessible(what: string) {
  checked.push(what);
  const violations = await seriousViolations(page);
  expect(violations, `${what}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  await expect(duplicateIds(page), `${what}: ids used twice`).resolves.toEqual([]);
}

/** Go to `hash` and wait for `ready` (text the page shows once loaded). */
async function open(hash: string, ready: () => Promise<unknown>) {
  await page.evaluate(`location.hash = ${JSON.stringify(`#/${hash}`)}`);
  await ready();
}

beforeAll(async () => {
  work = await uiWorkspace('a11y');
  notes = await startNotesUpstream();
  cyrnel = await startCyrnel(join(work, 'data'), {
    CYRNEL_API_KEY: KEY,
    CYRNEL_DEFAULT_POLICY: 'default=ask,readOnly=allow',
  });
  admin = createClient({ baseUrl: cyrnel.url, apiKey: KEY });
  await installNotes(admin, notes);
  agentKey = (await admin.keys.create({ name: 'bot', role: 'agent' })).key;
  const agent = createClient({ baseUrl: cyrnel.url, apiKey: agentKey });
  waiting = agent.processes.run(PROGRAM);
  // Awaited by a test; a failure before that is not an unhandled rejection.
  waiting.catch(() => undefined);
  for (let tries = 0; approvalId === undefined || approvalId === ''; tries += 1) {
    if (tries > 600) throw new Error('the program never waited for its approval');
    const [process] = (await admin.processes.list({ state: 'waiting' })).items;
    if (process) {
      processId = process.id;
      approvalId = (await admin.processes.get(processId)).approvalId ?? '';
    } else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  browser = await launchChromium();
  // axe is injected as an inline script, which the UI's Content-Security-Policy would block.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  // 401s: the probes without a key; 403s: the agent key's role, asked at its sign-in.
  recordProblems(page, problems, /status of (401|403)\b/);
}, 120_000);
afterAll(() => closeUi({ browser, cyrnel, also: [notes], work }));

describe('every page of the admin UI passes axe-core, in headless Chromium', () => {
  it('the sign-in page, and a wrong key refused', async () => {
    await page.goto(`${cyrnel.url}/ui/`);
    await page.getByLabel('API key').waitFor();
    await expectAccessible('sign-in');
    await page.getByLabel('API key').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'unauthorized' }).waitFor();
    await expectAccessible('sign-in, refused');
    await signIn(page, KEY);
    await page.getByRole('heading', { name: 'Services' }).waitFor();
  });

  it('the services, one service (with its settings refused before sending) and its connections', async () => {
    await page.getByRole('link', { name: 'notes', exact: true }).waitFor();
    await expectAccessible('services');
    await open('services/notes', () => page.getByRole('form', { name: 'Secrets' }).waitFor());
    await page.getByRole('heading', { name: 'Tools (2)' }).waitFor();
    await expectAccessible('service');
    await page
      .getByRole('form', { name: 'Secrets' })
      .getByLabel(/^headers/)
      .fill("{ Authorization: 'x' }");
    await page.getByRole('button', { name: 'Save secrets' }).click();
    await page
      .getByRole('form', { name: 'Config' })
      .getByLabel(/^timeoutMs/)
      .fill('soon');
    await page.getByRole('button', { name: 'Save config' }).click();
    await page.getByRole('form', { name: 'Config' }).getByRole('alert').first().waitFor();
    await expectAccessible('service, settings refused');
    await open('services/notes/connections', () =>
      page.getByRole('form', { name: 'New connection' }).waitFor(),
    );
    await expectAccessible('connections');
  });

  it('the tools and one tool', async () => {
    await open('tools', () => page.getByRole('link', { name: 'notes.listNotes' }).waitFor());
    await expectAccessible('tools');
    await open('tools/notes/listNotes', () =>
      page.getByTestId('tool-docs').filter({ hasText: 'listNotes' }).waitFor(),
    );
    await expectAccessible('tool');
  });

  it('the playground, with its editor and a run', async () => {
    await open('playground', () => page.locator('.cm-content').waitFor());
    await page.locator('.cm-content').fill("cyrnel.output({ hello: 'world' });");
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('exit-state').filter({ hasText: 'success' }).waitFor();
    await expectAccessible('playground');
    await page.getByLabel('Timeout (ms)').fill('1 minute');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('alert').filter({ hasText: 'The timeout is a whole number' }).waitFor();
    await expectAccessible('playground, timeout refused');
  });

  it('the processes, a waiting process with its calls, and a filter nothing matches', async () => {
    await open('processes', () => page.getByRole('link', { name: `#${processId}` }).waitFor());
    await expectAccessible('processes');
    await page.getByLabel('State').selectOption('queued');
    await page.getByTestId('no-process').waitFor();
    await expectAccessible('processes, none matching');
    await open(`processes/${processId}`, () => page.getByTestId('waiting-approval').waitFor());
    await page.getByTestId('call-row').first().waitFor();
    await expectAccessible('process');
  });

  it('the approvals and one approval', async () => {
    await open('approvals', () => page.getByRole('table', { name: 'Pending approvals' }).waitFor());
    await expectAccessible('approvals');
    await open(`approvals/${approvalId as string}`, () => page.getByTestId('parameters').waitFor());
    await expectAccessible('approval');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('approval-state').filter({ hasText: 'approved' }).waitFor();
    await expect(waiting).resolves.toMatchObject({ exitState: 'success' });
    await expectAccessible('approval, decided');
  });

  it('the modules and one module', async () => {
    await open('modules', () => page.getByRole('link', { name: 'openapi', exact: true }).waitFor());
    await expectAccessible('modules');
    await open('modules/openapi', () => page.getByRole('heading', { name: /^openapi — / }).waitFor());
    await expectAccessible('module');
  });

  it('the keys, with a key just created shown once', async () => {
    await open('keys', () => page.getByTestId('key-row').first().waitFor());
    await expectAccessible('keys');
    const form = page.getByRole('form', { name: 'New key' });
    await form.getByLabel('Name').fill('laptop');
    await form.getByRole('button', { name: 'Create the key' }).click();
    await page.getByTestId('new-key').waitFor();
    await expectAccessible('keys, new key');
  });

  it('the dashboard, from the metrics', async () => {
    await open('dashboard', () => page.getByTestId('dashboard-runs').waitFor());
    await expectAccessible('dashboard');
  });

  it('the Connect page and an address with no page', async () => {
    await open('connect', () => page.getByText(`${cyrnel.url}/mcp`).first().waitFor());
    await expectAccessible('connect');
    await open('nowhere', () => page.getByRole('heading', { name: 'No such page' }).waitFor());
    await expectAccessible('no such page');
  });

  it('is no formality: a field without a label and an id used twice are found', async () => {
    await page.evaluate(
      `document.querySelector('main').append(Object.assign(document.createElement('input'), { id: 'app' }))`,
    );
    await expect(seriousViolations(page)).resolves.toContainEqual(expect.objectContaining({ id: 'label' }));
    await expect(duplicateIds(page)).resolves.toEqual(['app']);
    await page.evaluate(`document.querySelector('main > input#app').remove()`);
    await expect(seriousViolations(page)).resolves.toEqual([]);
  });

  it("an agent key's pages: its navigation, and a page it may not open", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, agentKey);
    await open('tools', () => page.getByRole('link', { name: 'notes.listNotes' }).waitFor());
    await expectAccessible('agent: tools');
    await open('services', () => page.getByTestId('forbidden').waitFor());
    await expectAccessible('agent: forbidden page');
  });

  it('checked every page, and the browser logged no error but the refusals the test provoked', () => {
    expect(checked).toHaveLength(25);
    expect(problems).toEqual([]);
  });
});
