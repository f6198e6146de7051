import type { Report } from './report.ts';

/**
 * The exit code of a run: 1 only when a quick run (what CI runs) could not run one of the code
 * under test's own parts, which is how CI notices benchmark code that has rotted. A full run, the
 * failures of third-party parts (`thirdParty`: the peer), and a run its time budget cut short (a
 * busy machine, not a defect: the parts it stopped are in `unfinished`) all exit 0.
 *
 * @example
 * ```ts
 * process.exit(exitCode('quick', report, ['peer (@utcp/code-mode)']));
 * ```
 */
export function exitCode(
  mode: 'full' | 'quick',
  report: Pick<Report, 'skips'>,
  thirdParty: readonly string[],
): 0 | 1 {
  return mode === 'quick' && report.skips.some((skip) => !thirdParty.includes(skip.section)) ? 1 : 0;
}
