import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'ui-admin-key';
const WALKTHROUGH = `const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ query: { city: 'Lima' } });
const converted = await cyrnel.services.weather.tools.celsiusToFahrenheit.invoke({
  query: { celsius: forecast.body.celsius },
});
cyrnel.output({ city: forecast.body.city, fahrenheit: converted.body.fahrenheit });
`;

let work: string;
let cyrnel: CyrnelServer;
let upstream: { url: string; close(): Promise<void> };
let browser: Browser;
let page: Page;
const problems: string[] = [];
// What the walkthrough's run read from the weather tools, as its process page said it.
let walkthroughRead: string | undefined;

/** How many `method path` requests the page makes from now on. */
function countRequests(method: string, path: string): () => number {
  let count = 0;
  page.on('request', (request) => {
    if (request.method() === method && new URL(request.url()).pathname === path) count += 1;
  });
  return () => count;
}

const shot = (name: string) => screenshot(page, name);

beforeAll(async () => {
  work = await uiWorkspace('main');
  const { startUpstream } = (await import(join(ROOT, 'examples', 'upstream.mjs'))) as {
    startUpstream(port: number): Promise<{ url: string; close(): Promise<void> }>;
  };
  upstream = await startUpstream(0);
  cyrnel = await startCyrnel(join(work, 'data'), { CYRNEL_API_KEY: KEY });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // The wrong key's answer (401) is a step of this test that the page shows as an error (the
  // invalid config is refused before it is sent).
  recordProblems(page, problems, /status of 401\b/);
}, 60_000);
afterAll(() => closeUi({ browser, cyrnel, also: [upstream], work }));

describe('the admin UI at /ui in headless Chromium', () => {
  it('refuses a wrong key, then signs in with the right one', async () => {
    await page.goto(`${cyrnel.url}/ui/`);
    await page.getByLabel('API key').fill('wrong-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('unauthorized');
    await shot('sign-in');
    await signIn(page, KEY);
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    await shot('services');
    await page
      .getByTestId('status')
      .filter({ hasText: /healthy · API \d+\.\d+\.\d+ · environment typescript-ivm/ })
      .waitFor();
  });

  it('installs the weather example from a file, sets its secret and enables it', async () => {
    const document = JSON.parse(await readFile(join(ROOT, 'examples', 'weather.openapi.json'), 'utf8'));
    document.servers = [{ url: upstream.url }];
    const file = join(work, 'weather.openapi.json');
    await writeFile(file, JSON.stringify(document));
    // What the server would refuse is said at its field, and not sent.
    const installs = countRequests('POST', '/services');
    const form = page.getByRole('form', { name: 'Install a service' });
    await page.getByLabel('Id (used in code').fill('2 weather');
    await page.getByLabel('Definition from').selectOption('url');
    await page.getByLabel('URL').fill('weather.example.com/openapi.json');
    await page.getByRole('button', { name: 'Install' }).click();
    await form.getByRole('alert').filter({ hasText: 'The id is how code names the service' }).waitFor();
    await form
      .getByRole('alert')
      .filter({ hasText: 'The URL is a full http:// or https:// address' })
      .waitFor();
    expect(installs()).toBe(0);
    await page.getByLabel('Definition from').selectOption('file');
    await page.getByLabel('Id (used in code').fill('weather');
    await page.getByLabel('Adapter').selectOption('openapi');
    await page.getByLabel('File').setInputFiles(file);
    await page.getByRole('button', { name: 'Install' }).click();
    await page.getByRole('heading', { name: /^weather/ }).waitFor();
    expect(installs()).toBe(1);
    await page.getByLabel(/^apiKey/).fill('demo-key');
    await page.getByRole('button', { name: 'Save secrets' }).click();
    await page.getByText('set', { exact: true }).waitFor();
    await expect(page.getByRole('cell', { name: 'off', exact: true }).count()).resolves.toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    // Its tools are callable at once, without a reload.
    await expect.poll(() => page.getByRole('cell', { name: 'off', exact: true }).count()).toBe(0);
    await expect(page.getByRole('cell', { name: 'callable', exact: true }).count()).resolves.toBe(2);
    await shot('service');
    const admin = (await import('@cyrnel/client')).createClient({ baseUrl: cyrnel.url, apiKey: KEY });
    expect((await admin.services.get('weather')).enabled).toBe(true);
  });

  it("edits the service's config through the form generated from its schema, checked before it is sent", async () => {
    await page.getByLabel('timeoutMs').fill('0');
    await page.getByRole('button', { name: 'Save config' }).click();
    await page.getByRole('alert').filter({ hasText: 'timeoutMs must be at least 1' }).waitFor();
    await page.getByLabel('timeoutMs').fill('5000');
    await page.getByRole('button', { name: 'Save config' }).click();
    await page.getByText('saved: timeoutMs', { exact: true }).waitFor();
    const admin = (await import('@cyrnel/client')).createClient({ baseUrl: cyrnel.url, apiKey: KEY });
    expect((await admin.services.getConfig('weather')).config).toMatchObject({ timeoutMs: 5000 });
  });

  it('finds a tool by words and shows its docs', async () => {
    await page.getByRole('link', { name: 'Tools' }).click();
    await page.getByLabel(/^Search/).fill('forecast');
    await page.getByRole('link', { name: 'weather.getForecast' }).click();
    await page.getByTestId('tool-docs').filter({ hasText: 'getForecast' }).waitFor();
    await shot('tool');
  });

  it('completes tool names in the playground from the types of the enabled tools', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    const editor = page.locator('.cm-content');
    await editor.waitFor();
    await editor.fill('');
    await editor.pressSequentially('cyrnel.services.weather.tools.');
    await page.locator('.cm-tooltip-autocomplete').getByText('getForecast').waitFor();
    await shot('completion');
    await page.keyboard.press('Escape');
    // An unknown tool is an error of the type checker, shown in the editor.
    await editor.fill('cyrnel.services.weather.tools.noSuchTool;');
    await page.locator('.cm-lintRange-error').first().waitFor();
  });

  it('runs the walkthrough in the playground: Lima is 64.4 °F, through two tool calls', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.locator('.cm-content').fill(WALKTHROUGH);
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('exit-state').filter({ hasText: 'success' }).waitFor();
    await page.getByTestId('output').filter({ hasText: '"fahrenheit": 64.4' }).waitFor();
    await page.getByTestId('calls').getByText('weather.celsiusToFahrenheit').waitFor();
    await expect(page.getByTestId('calls').locator('tbody tr').count()).resolves.toBe(2);
    await shot('playground');
  });

  it('lists the run on the processes page with its two calls, and keeps state across a reload', async () => {
    await page.getByRole('link', { name: 'Processes' }).click();
    // A filter nothing matches says so, rather than that there is no process at all.
    await page.getByLabel('State').selectOption('waiting');
    await page
      .getByTestId('no-process')
      .filter({ hasText: 'No process matches the state “waiting”' })
      .waitFor();
    await page.getByLabel('State').selectOption('');
    await page
      .getByRole('link', { name: /^#\d+$/ })
      .first()
      .click();
    await page.getByTestId('exit-state').filter({ hasText: 'success' }).waitFor();
    await page.getByTestId('calls').getByText('weather.celsiusToFahrenheit').waitFor();
    await expect(page.getByTestId('calls').locator('tbody tr').count()).resolves.toBe(2);
    // Each call with its answer and duration; the API keeps no parameters of a call no one approved.
    await expect(page.getByTestId('call-answer').allTextContents()).resolves.toEqual(['ok', 'ok']);
    for (const duration of await page.getByTestId('call-duration').allTextContents()) {
      expect(duration).toMatch(/^\d+ ms$/);
    }
    await expect(page.getByTestId('call-parameters').allTextContents()).resolves.toEqual([
      'not recorded',
      'not recorded',
    ]);
    // What each answer brought into the sandbox, and what the run kept out of the model's context.
    const sizes = await page.getByTestId('call-bytes').allTextContents();
    expect(sizes).toHaveLength(2);
    for (const size of sizes) expect(size).toMatch(/^[1-9]\d* B$/);
    const sentence = (await page.getByTestId('efficiency').textContent()) ?? '';
    const said =
      /^This run read ([1-9]\d* B) from tools in 2 calls and returned ([1-9]\d* B) to the model \(\d+(\.\d+)?× (less|more)\)\.$/.exec(
        sentence,
      );
    expect(said, sentence).not.toBeNull();
    walkthroughRead = said?.[1];
    // The sizes of the answers add up to what the run read.
    const sum = sizes.reduce((total, size) => total + Number.parseInt(size, 10), 0);
    expect(`${sum} B`).toBe(walkthroughRead);
    await expect(page.getByTestId('efficiency-ratio').textContent()).resolves.toMatch(
      /^\d+(\.\d+)?× (pays off|neutral|direct calls would be as cheap)$/,
    );
    await expect(page.getByTestId('efficiency-wall').textContent()).resolves.toMatch(/^\d+(\.\d)? (ms|s)$/);
    await expect(page.getByTestId('efficiency-cpu').textContent()).resolves.toMatch(/^\d+(\.\d)? (ms|s)$/);
    const url = page.url();
    await page.reload();
    expect(page.url()).toBe(url);
    await page.getByTestId('exit-state').filter({ hasText: 'success' }).waitFor();
    await shot('process');
    await page.getByRole('link', { name: 'Processes' }).click();
    await page.getByRole('heading', { name: 'Processes' }).waitFor();
    await shot('processes');
    await page.getByRole('link', { name: 'Connect' }).click();
    await page.getByText(`${cyrnel.url}/mcp`).first().waitFor();
    await shot('connect');
  });

  it('kills a long-running process from the playground', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    // The text area is replaced by the editor once its chunk loads: type into the editor.
    await page.locator('.cm-content').waitFor();
    await page
      .getByLabel('Code (TypeScript)')
      .fill("console.log('started');\nawait new Promise((resolve) => setTimeout(resolve, 60_000));");
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('stdout').filter({ hasText: 'started' }).waitFor();
    await page.getByRole('button', { name: 'Kill' }).click();
    await page.getByTestId('exit-state').filter({ hasText: 'canceled' }).waitFor();
  });

  it('shows the dashboard from /metrics: runs by exit, the tools called, upstream classes, rates after a second read', async () => {
    const scrapes = countRequests('GET', '/metrics');
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const tools = page.getByTestId('dashboard-tools');
    await tools
      .getByRole('row')
      .filter({ hasText: /weather\s*getForecast\s*1\b/ })
      .waitFor();
    await tools
      .getByRole('row')
      .filter({ hasText: /weather\s*celsiusToFahrenheit\s*1\b/ })
      .waitFor();
    const runs = page.getByTestId('dashboard-runs');
    await runs
      .getByRole('row')
      .filter({ hasText: /success\s*none\s*1\b/ })
      .waitFor();
    await runs
      .getByRole('row')
      .filter({ hasText: /canceled\s*process_killed\s*1\b/ })
      .waitFor();
    await page
      .getByTestId('dashboard-upstream')
      .getByRole('row')
      .filter({ hasText: /2xx\s*2\b/ })
      .waitFor();
    await expect(page.getByTestId('queue-depth').textContent()).resolves.toBe('0');
    await expect(page.getByTestId('approvals-pending').textContent()).resolves.toBe('0');
    await expect(page.getByTestId('event-loop-lag').textContent()).resolves.toMatch(/^\d+(\.\d)? (ms|s)$/);
    // The second read (5 s later) gives each counter its rate: nothing ran in between.
    await tools.getByText('(0.00/s)').first().waitFor({ timeout: 30_000 });
    expect(scrapes()).toBeGreaterThanOrEqual(2);
    await shot('dashboard');
  });

  it("lists the modules with their status and edits a module's config", async () => {
    await page.getByRole('link', { name: 'Modules' }).click();
    await page.getByRole('link', { name: 'openapi', exact: true }).waitFor();
    await shot('modules');
    await page.getByRole('link', { name: 'typescript-ivm', exact: true }).click();
    await page.getByRole('heading', { name: /^typescript-ivm/ }).waitFor();
    await page.getByRole('form', { name: 'Config' }).waitFor();
  });

  it('replaces a definition and shows the tools it added and removed', async () => {
    const document = JSON.parse(await readFile(join(ROOT, 'examples', 'weather.openapi.json'), 'utf8'));
    document.servers = [{ url: upstream.url }];
    const [path] = Object.keys(document.paths).filter((key) =>
      JSON.stringify(document.paths[key]).includes('celsiusToFahrenheit'),
    );
    delete document.paths[path as string];
    const file = join(work, 'weather-smaller.json');
    await writeFile(file, JSON.stringify(document));
    await page.getByRole('link', { name: 'Services' }).click();
    await page.getByRole('link', { name: 'weather', exact: true }).click();
    // The service's efficiency card sums the walkthrough's run (the killed one called no tool).
    const stats = page.getByTestId('service-stats');
    await stats.getByTestId('stats-runs').filter({ hasText: /^1$/ }).waitFor();
    await expect(stats.getByTestId('stats-calls').textContent()).resolves.toBe('2');
    await expect(stats.getByTestId('stats-read').textContent()).resolves.toBe(walkthroughRead);
    await expect(stats.getByTestId('stats-returned').textContent()).resolves.toMatch(/^[1-9]\d* B$/);
    await expect(stats.getByTestId('stats-window').textContent()).resolves.toMatch(
      /^\d{4}-\d\d-\d\dT\S+Z to \d{4}-\d\d-\d\dT\S+Z$/,
    );
    await shot('service-stats');
    await page.getByLabel('New definition from').selectOption('file');
    await page.locator('#update-file').setInputFiles(file);
    await page.getByRole('button', { name: 'Replace the definition' }).click();
    await page
      .getByTestId('definition-changes')
      .filter({ hasText: 'Added: none. Removed: celsiusToFahrenheit.' })
      .waitFor();
  });

  it('works from the keyboard and in a narrow window', async () => {
    await page.setViewportSize({ width: 420, height: 800 });
    await page.getByRole('link', { name: 'Services' }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Tools' }).waitFor();
    // Nothing wider than the window: no horizontal scrolling.
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no error in the browser console', () => {
    expect(problems).toEqual([]);
  });
});
