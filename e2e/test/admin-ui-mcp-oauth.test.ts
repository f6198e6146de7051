import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type CyrnelClient, createClient } from '@cyrnel/client';
import { type ConformanceScenario, startConformanceScenario } from '@cyrnel/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const KEY = 'ui-mcp-oauth-admin';
const require = createRequire(import.meta.url);
/** The official MCP conformance suite: its scenario is an MCP server behind a real authorization server. */
const SUITE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

let work: string;
let scenario: ConformanceScenario;
let cyrnel: CyrnelServer;
let admin: CyrnelClient;
let browser: Browser;
let page: Page;
const problems: string[] = [];

const row = (name: string) => page.locator(`[data-testid="connection-row"][data-name="${name}"]`);

beforeAll(async () => {
  work = await uiWorkspace('mcp-oauth');
  scenario = await startConformanceScenario(SUITE, 'auth/metadata-default');
  cyrnel = await startCyrnel(join(work, 'data'), { CYRNEL_API_KEY: KEY });
  admin = createClient({ baseUrl: cyrnel.url, apiKey: KEY });
  await admin.services.install({
    id: 'guarded',
    adapter: 'mcp',
    definition: JSON.stringify({ transport: 'http', url: scenario.serverUrl, oauth: {} }),
    enabled: true,
  });
  await admin.connections.create('guarded', { name: 'default' }).catch(() => undefined);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  // 401s: the page's probes without a key (the sign-in page asks whether the server needs one).
  recordProblems(page, problems, /status of 401\b/);
}, 90_000);
afterAll(() => closeUi({ browser, cyrnel, also: [scenario], work }));

describe('an MCP server behind OAuth, connected from the admin UI in headless Chromium', () => {
  it('connects the shared connection in a new tab, then the tools are listed and callable', async () => {
    await page.goto(`${cyrnel.url}/ui/#/services/guarded/connections`);
    await signIn(page, KEY);
    await page.getByRole('heading', { name: 'Connections of guarded' }).waitFor();
    const shared = row('default');
    await shared.waitFor();
    // Never signed in: the adapter signs it in, so it may be connected from here.
    const tab = page.context().waitForEvent('page');
    await shared.getByRole('button', { name: 'Connect default' }).click();
    const opened = await tab;
    // The authorization server of the scenario consents at once and sends the browser back.
    await opened.getByText('Connected: the connection default of the service guarded is signed in').waitFor();
    await opened.close();
    await shared
      .getByTestId('connection-status')
      .filter({ hasText: /^connected$/ })
      .waitFor();
    await screenshot(page, 'mcp-oauth-connected');
    expect((await admin.connections.get('guarded', 'default')).oauth).toMatchObject({ pending: false });

    const refreshed = await admin.services.refresh('guarded');
    expect(refreshed.service.toolCount).toBeGreaterThan(0);
    const tools = await admin.tools.list({ serviceId: 'guarded' });
    const tool = tools.items[0]?.id as string;
    const { output } = await admin.processes.run(
      `cyrnel.output({ result: await cyrnel.services.guarded.tools.${tool}.invoke({}) });`,
      { throwOnFailure: true },
    );
    expect(output).toHaveProperty('result');
    expect(problems).toEqual([]);
  });
});
