import type { OutputCaps } from '../shared/run-job';

/** Per-execution accounting of stdout, stderr and output sizes against their configured caps. */
export interface OutputBudget {
  /** Bytes still accepted on a stream (0 once truncated). */
  room(stream: 'stdout' | 'stderr'): number;
  /** Text to forward for `text` (cut at a UTF-8 boundary plus a marker when over the cap), or undefined to drop it. */
  take(stream: 'stdout' | 'stderr', text: string): string | undefined;
  /** True while the stream still accepts text. */
  open(stream: 'stdout' | 'stderr'): boolean;
  /** Count a patch's entries against the output cap: an error message when it would exceed it (nothing counted). */
  mergeOutput(entries: readonly (readonly [string, string])[]): { error: string } | undefined;
}

/** Cut `bytes` at or below `max` without splitting a multi-byte UTF-8 sequence. */
function utf8Prefix(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** Create the budget of one execution. */
export function createOutputBudget(options: OutputCaps): OutputBudget {
  const left = { stdout: options.stdoutCapBytes, stderr: options.stderrCapBytes };
  const closed = { stdout: false, stderr: false };
  const caps = { stdout: options.stdoutCapBytes, stderr: options.stderrCapBytes };
  const keySizes = new Map<string, number>();
  let outputBytes = 2;
  return {
    room: (stream) => (closed[stream] ? 0 : left[stream]),
    open: (stream) => !closed[stream],
    take(stream, text) {
      if (closed[stream]) return undefined;
      const size = Buffer.byteLength(text, 'utf8');
      if (size <= left[stream]) {
        left[stream] -= size;
        return text;
      }
      closed[stream] = true;
      const head = utf8Prefix(text, left[stream]);
      left[stream] = 0;
      return `${head}\n[${stream} truncated: limit of ${caps[stream]} bytes reached]\n`;
    },
    mergeOutput(entries) {
      const sizes = new Map<string, number>();
      for (const [key, json] of entries) {
        sizes.set(key, Buffer.byteLength(JSON.stringify(key), 'utf8') + 1 + Buffer.byteLength(json, 'utf8'));
      }
      let total = outputBytes;
      for (const [key, size] of sizes) {
        const before = keySizes.get(key);
        total += before === undefined ? size + (total > 2 ? 1 : 0) : size - before;
      }
      if (total > options.outputCapBytes) {
        return {
          error: `cyrnel.output: the output would grow to ${total} bytes, over the limit of ${options.outputCapBytes} bytes; nothing was added`,
        };
      }
      for (const [key, size] of sizes) keySizes.set(key, size);
      outputBytes = total;
      return undefined;
    },
  };
}
