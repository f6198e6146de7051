import { type Browser, chromium } from 'playwright-core';

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
