import { CATASTROPHIC_ERROR_MARKER } from '../shared/sandbox-protocol';

/**
 * Why a child died, for `setError`. A child that aborts on isolated-vm's `onCatastrophicError`
 * says why on stderr first: V8 running out of heap (Map/Set/dictionary growth) reads "out of
 * memory" there and is reported as the memory limit; any other catastrophic error is named as
 * such. A bare SIGABRT (no report) is still most likely V8's own heap OOM.
 */
export function crashMessage(
  signal: NodeJS.Signals | null,
  code: number | null,
  stderrTail: string,
  limitMb: number,
) {
  const outOfMemory = `The sandbox ran out of memory (memory limit ${limitMb} MB hit); the execution was stopped and the sandbox restarted`;
  const at = stderrTail.lastIndexOf(CATASTROPHIC_ERROR_MARKER);
  if (at >= 0) {
    const reported =
      stderrTail
        .slice(at + CATASTROPHIC_ERROR_MARKER.length)
        .split('\n')[0]
        ?.trim() ?? '';
    if (/out.of.memory|heap limit|allocation failed/i.test(reported)) return outOfMemory;
    return `The sandbox's JavaScript engine hit a catastrophic error (${reported || 'no details'}); the execution was stopped and the sandbox restarted`;
  }
  if (
    signal === 'SIGABRT' ||
    /out of memory|heap limit|allocation failed/i.test(stderrTail) ||
    code === 134
  ) {
    return outOfMemory;
  }
  return `The sandbox process exited unexpectedly (${signal ?? `code ${code}`}); the execution was stopped and the sandbox restarted`;
}
