import type { ProcessResults } from './process-storage';

/**
 * What one process row counts against its key's stored bytes besides its texts: its fixed columns
 * (ids, states, timestamps, ref, error) and the database's own overhead, rounded up.
 */
export const PROCESS_ROW_BYTES = 256;

/** What one stored tool call counts against its process's key (a row of small fixed fields). */
export const CALL_ROW_BYTES = 128;

/** The texts of a process that count against its key: what an agent chooses the size of. */
export interface StoredTexts {
  readonly code: string;
  /** The `envConfig` as its JSON text. */
  readonly envConfig: string;
  /** The output as its JSON text. */
  readonly output: string;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The bytes a process row counts against its key: {@link PROCESS_ROW_BYTES} plus the UTF-8 bytes
 * of its code, `envConfig` JSON, output JSON, stdout and stderr. Each stored tool call adds
 * {@link CALL_ROW_BYTES}. Every `ProcessStorage` counts with exactly this rule (the SQL stores in
 * triggers), so the totals agree whatever the store.
 *
 * @example
 * ```ts
 * storedProcessBytes({ code: 'é', envConfig: '{}', output: '{}', stdout: '', stderr: '' }); // 256 + 2 + 2 + 2
 * ```
 */
export function storedProcessBytes(texts: StoredTexts): number {
  return (
    PROCESS_ROW_BYTES +
    Buffer.byteLength(texts.code) +
    Buffer.byteLength(texts.envConfig) +
    Buffer.byteLength(texts.output) +
    Buffer.byteLength(texts.stdout) +
    Buffer.byteLength(texts.stderr)
  );
}

/** The texts of a process from its code, `envConfig` and results. */
export function storedTexts(code: string, envConfig: unknown, results: ProcessResults): StoredTexts {
  return {
    code,
    envConfig: JSON.stringify(envConfig),
    output: JSON.stringify(results.output),
    stdout: results.stdout,
    stderr: results.stderr,
  };
}
