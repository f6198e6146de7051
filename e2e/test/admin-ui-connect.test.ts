import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@cyrnel/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, recordProblems, signIn } from '../support/chromium';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { listToolsOverStdio, type StdioServerConfig } from '../support/mcp-stdio';
import { closeUi, screenshot, uiWorkspace } from '../support/ui-session';

const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const KEY = 'ui-connect-admin';

let work: string;
let cyrnel: CyrnelServer;
let browser: Browser;
let page: Page;
let agentKey: string;
const problems: string[] = [];

async function openConnect(key: string) {
  await page.goto(`${cyrnel.url}/ui/`);
  await signIn(page, key);
  await page.getByRole('link', { name: 'Connect' }).click();
  await page.getByRole('heading', { name: 'Connect' }).waitFor();
}

beforeAll(async () => {
  work = await uiWorkspace('connect');
  cyrnel = await startCyrnel(join(work, 'data'), { CYRNEL_API_KEY: KEY });
  agentKey = (
    await createClient({ baseUrl: cyrnel.url, apiKey: KEY }).keys.create({ name: 'agent', role: 'agent' })
  ).key;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // The page's first probe without a key (401), and an agent key's `GET /server` (403).
  recordProblems(page, problems, /status of (401|403)\b/);
}, 60_000);
afterAll(() => closeUi({ browser, cyrnel, work }));

describe('the Connect page', () => {
  it('shows an admin the bridge of this installation (a checkout: its scripts/mcp.sh), which connects', {
    timeout: 180_000,
  }, async () => {
    await openConnect(KEY);
    await page
      .getByTestId('install')
      .filter({ hasText: `a checkout of the repository at ${ROOT}` })
      .waitFor();
    const config = JSON.parse((await page.getByTestId('stdio-config').textContent()) ?? '') as {
      mcpServers: { cyrnel: StdioServerConfig };
    };
    const bridge = config.mcpServers.cyrnel;
    expect(bridge).toEqual({
      command: 'bash',
      args: [join(ROOT, 'scripts', 'mcp.sh')],
      env: { CYRNEL_URL: cyrnel.url, CYRNEL_API_KEY: 'cyk_…' },
    });
    // The configuration as shown, with a real key: the MCP client's view.
    const tools = await listToolsOverStdio({ ...bridge, env: { ...bridge.env, CYRNEL_API_KEY: KEY } });
    expect(tools).toContain('execute_typescript');
    // The other ways to install, each said plainly.
    const bridges = page.getByTestId('bridges');
    await expect(bridges.textContent()).resolves.toContain('bash /path/to/cyrnel/scripts/mcp.sh');
    await expect(bridges.textContent()).resolves.toContain('scripts/pack.sh');
    await expect(bridges.textContent()).resolves.toContain('npx -y @cyrnel/server mcp');
    await expect(page.getByText(`${cyrnel.url}/mcp`).count()).resolves.toBeGreaterThan(0);
    await screenshot(page, 'connect');
  });

  it('tells another key that the installation is an admin’s to see, and lists every way', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await openConnect(agentKey);
    await page.getByTestId('install').filter({ hasText: 'shown to admin keys' }).waitFor();
    await expect(page.getByTestId('stdio-config').count()).resolves.toBe(0);
    await expect(page.getByTestId('bridges').locator('dd').count()).resolves.toBe(3);
    expect(problems).toEqual([]);
  });
});
