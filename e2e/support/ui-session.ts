import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { CyrnelServer } from './cyrnel-server';

/** Where the admin UI tests leave their screenshots (`e2e/artifacts/`, kept by CI). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/**
 * A working directory of its own for one admin UI test file (`cyrnel-e2e-ui-<name>-…` in the
 * system's temp directory; the server's data goes below it), with the artifacts folder made.
 */
export async function uiWorkspace(name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  return mkdtemp(join(tmpdir(), `cyrnel-e2e-ui-${name}-`));
}

/** A full-page screenshot of `page` as `e2e/artifacts/ui-<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `ui-${name}.png`), fullPage: true });
}

/** What {@link closeUi} ends; each may be missing (a `beforeAll` that failed part-way). */
export interface UiParts {
  readonly browser?: Browser;
  readonly cyrnel?: CyrnelServer;
  /** Upstreams and other peers the file started, closed after the server. */
  readonly also?: readonly ({ close(): Promise<unknown> } | { stop(): Promise<unknown> } | undefined)[];
  readonly work?: string;
}

/**
 * End an admin UI test file: the browser, then the server, then its peers, then its working
 * directory. For `afterAll`.
 *
 * @example
 * afterAll(() => closeUi({ browser, cyrnel, also: [notes], work }));
 */
export async function closeUi(parts: UiParts): Promise<void> {
  await parts.browser?.close();
  await parts.cyrnel?.program.stop();
  for (const peer of parts.also ?? []) {
    if (peer === undefined) continue;
    await ('close' in peer ? peer.close() : peer.stop());
  }
  if (parts.work !== undefined) await rm(parts.work, { recursive: true, force: true });
}
