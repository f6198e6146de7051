import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser build (the version `e2e/package.json` pins). */
export const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** One rule axe found broken on a page, with the elements that break it. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  /** CSS selectors of the elements, and axe's summary of what to fix on each. */
  readonly nodes: readonly string[];
}

/**
 * Run axe-core on `page` as it is now (its WCAG 2.x A and AA rules and best practices) and return
 * the violations of `serious` or `critical` impact. The page's context must bypass the CSP
 * (`browser.newContext({ bypassCSP: true })`): the script is injected inline, which the UI's policy
 * (`script-src 'self'`) would block.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof globalThis.axe === "object"')))
    await page.addScriptTag({ path: AXE_SCRIPT });
  // A string, evaluated in the page: this package's types have no DOM.
  const violations = await page.evaluate<
    {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[]; failureSummary?: string }[];
    }[]
  >('axe.run(document).then((result) => result.violations)');
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`),
    }));
}

/** The element ids `page` uses more than once (each id once). */
export function duplicateIds(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const counts = new Map();
    for (const element of document.querySelectorAll('[id]')) counts.set(element.id, (counts.get(element.id) ?? 0) + 1);
    return [...counts].filter(([, count]) => count > 1).map(([id]) => id);
  })()`);
}
