import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (`scripts/chromium.sh` installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

/** Flags for a headless run in a container, without background traffic. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launch headless Chromium through playwright-core. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

/**
 * Collect into `problems` what goes wrong in `page`: uncaught errors, and console errors except
 * those matching `expected` (the browser logs every non-2xx answer itself, such as the 401 of the
 * page's first probe without a key, which a test may provoke on purpose).
 */
export function recordProblems(page: Page, problems: string[], expected: RegExp): void {
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
}

/**
 * Collect into `refused` every answer of 400 or more that `page` gets, but the 401s (the page's
 * first probe without a key), as `status METHOD path`: a test then says which ones it provoked.
 */
export function recordRefusals(page: Page, refused: string[]): void {
  page.on('response', (response) => {
    if (response.status() < 400 || response.status() === 401) return;
    refused.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
}

/**
 * Resolves once `page` asked the server who the key signing in is (`GET /me`, answered 200): the
 * page knows the key's role from then on. Call it before the sign-in, await it after.
 */
export function identityAsked(page: Page): Promise<unknown> {
  return page.waitForResponse(
    (response) => new URL(response.url()).pathname === '/me' && response.status() === 200,
  );
}

/**
 * Sign in on `page`'s sign-in form with `key` (a key the server accepts), resolving once the page
 * asked who the key is (`GET /me`, answered 200): it knows the key's role from then on.
 *
 * @example
 * await page.goto(`${url}/ui/`);
 * await signIn(page, KEY);
 */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key').fill(key);
  const asked = identityAsked(page);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await asked;
}
