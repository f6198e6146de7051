import { join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import type { CreatedKey, ProcessResult } from '@cyrnel/sdk/api';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { installNotes, type NotesUpstream, startNotesUpstream } from '../support/notes-upstream';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const KEY = 'ui-approvals-bootstrap';
// Text an agent controls: were it parsed as HTML, the image's handler would set `pwned`.
const HOSTILE = '<img src=x onerror="globalThis.pwned=1"><script>globalThis.pwned=2</script>';
const HOSTILE_NOTE = '<b>fine</b> <img src=y onerror="globalThis.pwned=3">';
// Line 2 calls a POST tool, which asks by default; line 1 a read-only one, allowed by default.
const PROGRAM = [
  'const before = await cyrnel.services.notes.tools.listNotes.invoke({});',
  `const created = await cyrnel.services.notes.tools.createNote.invoke({ body: { text: ${JSON.stringify(HOSTILE)} } });`,
  'cyrnel.output({ id: created.body.id, before: before.body.length });',
].join('\n');
// A plan: one named tool that asks, and a call site whose tool is computed at run time.
const PLANNED = [
  "const name = ['list', 'Notes'].join('');",
  'await cyrnel.services.notes.tools[name].invoke({});',
  "const note = await cyrnel.services.notes.tools.createNote.invoke({ body: { text: 'planned' } });",
  'cyrnel.output({ id: note.body.id });',
].join('\n');

let work: string;
let cyrnel: CyrnelServer;
let notes: NotesUpstream;
let admin: CyrnelClient;
let agent: CyrnelClient;
let operator: CreatedKey;
let browser: Browser;
let page: Page;
const problems: string[] = [];

const shot = (name: string) => screenshot(page, name);

/** Nothing an agent wrote became an element or ran. */
async function expectNoHtmlFromAgents() {
  await expect(page.locator('main img, main script, main b').count()).resolves.toBe(0);
  await expect(page.evaluate('globalThis.pwned')).resolves.toBeUndefined();
}

beforeAll(async () => {
  work = await uiWorkspace('approvals');
  notes = await startNotesUpstream();
  // The server's default out of the box: read-only tools run, every other tool asks.
  cyrnel = await startCyrnel(join(work, 'data'), {
    CYRNEL_API_KEY: KEY,
    CYRNEL_DEFAULT_POLICY: 'default=ask,readOnly=allow',
  });
  admin = createClient({ baseUrl: cyrnel.url, apiKey: KEY });
  // The person deciding signs in with a key of their own, so decisions name it.
  operator = await admin.keys.create({ name: 'operator', role: 'admin' });
  agent = createClient({
    baseUrl: cyrnel.url,
    apiKey: (await admin.keys.create({ name: 'bot', role: 'agent' })).key,
  });
  await installNotes(admin, notes);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // 401s are the page's probes without a key (the sign-in page asks whether the server needs one).
  recordProblems(page, problems, /status of 401\b/);
}, 60_000);
afterAll(() => closeUi({ browser, cyrnel, also: [notes], work }));

describe('approvals in the admin UI, in headless Chromium', () => {
  let processId: number;
  // The agent's `run()`: it keeps waiting while the program waits for a person.
  let running: Promise<ProcessResult>;

  it('shows a call that asks on the Approvals page as soon as the program waits at it', async () => {
    await page.goto(`${cyrnel.url}/ui/`);
    await signIn(page, operator.key);
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByTestId('no-pending').waitFor();
    running = agent.processes.run(PROGRAM);
    // No reload: the page asks again by itself.
    await page.getByRole('link', { name: 'notes.createNote' }).waitFor();
    const waiting = (await admin.processes.list({ state: 'waiting' })).items;
    expect(waiting).toHaveLength(1);
    processId = waiting[0]?.id ?? 0;
    await shot('approvals');
    expect(notes.requests).toEqual(['GET /notes']);
  });

  it("links the waiting process to its approval, which marks the call's line and shows its parameters as text", async () => {
    await page
      .getByRole('table', { name: 'Pending approvals' })
      .getByRole('link', { name: `#${processId}` })
      .click();
    await page.getByTestId('process-state').filter({ hasText: 'waiting' }).waitFor();
    // The calls so far, while it waits (the server records the call it waits at once decided).
    await expect.poll(() => page.getByTestId('call-answer').allTextContents()).toEqual(['ok']);
    await expect(page.getByTestId('calls').textContent()).resolves.toContain('notes.listNotes');
    await page.getByTestId('waiting-approval').getByRole('link', { name: 'open the approval' }).click();
    await page.getByRole('heading', { name: 'Call of notes.createNote' }).waitFor();
    const marked = page.getByTestId('marked-line');
    await expect(marked.count()).resolves.toBe(1);
    await expect(marked.getAttribute('data-line')).resolves.toBe('2');
    await expect(marked.textContent()).resolves.toContain('tools.createNote.invoke');
    await expect(page.getByTestId('approval-tool').textContent()).resolves.toBe('notes.createNote');
    await expect(page.getByTestId('approval-state').textContent()).resolves.toBe('pending');
    const parameters = JSON.parse((await page.getByTestId('parameters').textContent()) ?? '');
    expect(parameters).toMatchObject({ body: { text: HOSTILE } });
    await expect(page.getByTestId('code-listing').textContent()).resolves.toContain('<img src=x onerror=');
    await expectNoHtmlFromAgents();
    await shot('approval');
    // The link MCP answers give (`/ui/approvals/<id>`) opens the same page.
    const approvalId = (await admin.processes.get(processId)).approvalId as string;
    await page.goto(`${cyrnel.url}/ui/approvals/${encodeURIComponent(approvalId)}`);
    await page.getByRole('heading', { name: 'Call of notes.createNote' }).waitFor();
    expect(page.url()).toBe(`${cyrnel.url}/ui/#/approvals/${encodeURIComponent(approvalId)}`);
  });

  it('approves it with a note: the program goes on, and the call records the decision of that key', async () => {
    await page.getByLabel('Note (optional').fill(HOSTILE_NOTE);
    await page.getByLabel('Remember the approval').selectOption('process');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('approval-state').filter({ hasText: 'approved' }).waitFor();
    await expect(page.getByTestId('decided-by').textContent()).resolves.toContain(`by key ${operator.id}`);
    await expect(page.getByTestId('decided-by').textContent()).resolves.toContain(HOSTILE_NOTE);
    await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    await expectNoHtmlFromAgents();

    expect(await running).toMatchObject({
      id: processId,
      state: 'idle',
      exitState: 'success',
      approvalId: null,
      output: { id: 1, before: 0 },
    });
    const { items } = await admin.processes.calls(processId);
    expect(items.map((call) => [call.toolId, call.ok, call.decision?.outcome])).toEqual([
      ['listNotes', true, 'allowed'],
      ['createNote', true, 'approved'],
    ]);
    expect(items[1]?.decision).toMatchObject({ policy: 'ask', decidedBy: operator.id, note: HOSTILE_NOTE });
    expect(notes.requests).toEqual(['GET /notes', 'POST /notes']);
  });

  it("shows the decision with each call on the process's page, and the approval among the decided ones", async () => {
    await page.getByRole('link', { name: `#${processId}` }).click();
    await page.getByTestId('exit-state').filter({ hasText: 'success' }).waitFor();
    const decisions = page.getByTestId('call-decision');
    await expect(decisions.nth(0).textContent()).resolves.toMatch(/allow.*allowed/);
    await expect(decisions.nth(1).textContent()).resolves.toMatch(
      new RegExp(`ask.*approved.*by key ${operator.id}`),
    );
    // The parameters of the call that waited for the approval (the API keeps no others), as text.
    const parameters = page.getByTestId('call-parameters');
    await expect(parameters.nth(0).textContent()).resolves.toBe('not recorded');
    await expect
      .poll(async () => JSON.parse((await parameters.nth(1).locator('pre').textContent()) ?? 'null'))
      .toMatchObject({ body: { text: HOSTILE } });
    await expectNoHtmlFromAgents();
    await shot('process-decisions');
    await page.getByRole('link', { name: 'Approvals' }).click();
    const decided = page.getByRole('table', { name: 'Decided approvals' });
    await decided.getByRole('link', { name: 'notes.createNote' }).waitFor();
    await expect(decided.getByTestId('decided-by').first().textContent()).resolves.toContain(operator.id);
    await page.getByTestId('no-pending').waitFor();
  });

  it('denies a call: nothing reaches the upstream and the program fails at the call', async () => {
    const denied = agent.processes.run(
      "await cyrnel.services.notes.tools.createNote.invoke({ body: { text: 'no' } });",
    );
    await page
      .getByRole('table', { name: 'Pending approvals' })
      .getByRole('link', { name: 'notes.createNote' })
      .click();
    await page.getByLabel('Note (optional').fill('not today');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByTestId('approval-state').filter({ hasText: 'denied' }).waitFor();
    const result = await denied;
    expect(result.exitState).toBe('failed');
    const [call] = (await admin.processes.calls(result.id)).items;
    expect(call).toMatchObject({
      ok: false,
      errorReason: 'approval_denied',
      decision: { outcome: 'denied', decidedBy: operator.id, note: 'not today' },
    });
    expect(notes.requests.filter((request) => request.startsWith('POST'))).toHaveLength(1);
    await page.getByRole('link', { name: 'Approvals' }).click();
  });

  it('approves the plan of a whole program once: its tools with their policies and lines, the computed call site', async () => {
    const plan = await agent.processes.plan(PLANNED);
    await page.getByRole('link', { name: 'plan of a program' }).first().click();
    await page.getByRole('heading', { name: 'Plan of a program' }).waitFor();
    const row = page.getByTestId('plan-tools').getByRole('row', { name: /notes\.createNote/ });
    await expect(row.textContent()).resolves.toMatch(/ask.*3/);
    await expect(page.getByTestId('plan-unknown').textContent()).resolves.toContain('line 2');
    await expect(page.getByTestId('marked-line').count()).resolves.toBe(2);
    await shot('plan');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('approval-state').filter({ hasText: 'approved' }).waitFor();
    expect(await admin.approvals.get(plan.planId)).toMatchObject({
      state: 'approved',
      decidedBy: operator.id,
    });
    const result = await agent.processes.run(PLANNED, { planId: plan.planId, throwOnFailure: true });
    expect(result.output).toEqual({ id: 2 });
  });

  it('fits a 420-pixel-wide window: an approval and the list scroll no wider than the window', async () => {
    await page.setViewportSize({ width: 420, height: 800 });
    const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    await expect(overflow()).resolves.toBeLessThanOrEqual(0);
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('table', { name: 'Decided approvals' }).waitFor();
    await expect(overflow()).resolves.toBeLessThanOrEqual(0);
    await shot('approvals-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("edits a service's policy as JSON, with what is wrong with it shown", async () => {
    await page.getByRole('link', { name: 'Services' }).click();
    await page.getByRole('link', { name: 'notes', exact: true }).click();
    const editor = page.getByLabel('Policy (JSON)');
    await expect.poll(() => editor.inputValue()).toBe('{}');
    const save = page.getByRole('button', { name: 'Save policy' });
    await editor.fill('{ "tools": ');
    await save.click();
    await page.getByRole('alert').filter({ hasText: 'not JSON' }).waitFor();
    await editor.fill('{ "default": "maybe" }');
    await save.click();
    await page.getByRole('alert').filter({ hasText: 'default is not a policy' }).waitFor();
    await editor.fill('{ "tools": { "noSuchTool": "allow" } }');
    await save.click();
    await page.getByRole('alert').filter({ hasText: 'tool_not_found' }).waitFor();
    await expect(page.getByTestId('policy-issues').textContent()).resolves.toContain('tools.noSuchTool');
    await editor.fill('{ "byAnnotation": { "readOnly": "allow" }, "tools": { "createNote": "block" } }');
    await save.click();
    await page.getByRole('form', { name: 'Policy' }).getByText('saved', { exact: true }).waitFor();
    expect(await admin.services.getPolicy('notes')).toEqual({
      byAnnotation: { readOnly: 'allow' },
      tools: { createNote: 'block' },
    });
    // The service's tools show their new effective policies.
    await page.getByRole('row', { name: /notes\.createNote.*block/ }).waitFor();
    await shot('policy');
  });

  it('logged no error in the browser console but the answers to the two policies refused on purpose', () => {
    expect(problems).toEqual([
      expect.stringContaining('status of 400'),
      expect.stringContaining('status of 404'),
    ]);
  });
});
