import { CodeModeUtcpClient } from '@utcp/code-mode';
import '@utcp/http';

/** The peer, @utcp/code-mode, in-process, with the bench upstream registered as an HTTP manual. */
export interface CodeModePeer {
  /** Name under which the upstream's tools appear inside the peer's sandbox. */
  readonly manual: string;
  /** Runs `code` with `callToolChain` and returns its result; throws when the peer reports a failure. */
  run(code: string): Promise<unknown>;
  close(): Promise<void>;
}

// The peer prints a line per tool call and per registration on console.log; those lines
// are silenced while it runs so they neither flood the bench output nor count as work.
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const noop = () => {};
  Object.assign(console, { log: noop, info: noop, warn: noop, error: noop });
  try {
    return await fn();
  } finally {
    Object.assign(console, saved);
  }
}

/** Creates the peer client and registers `openapiUrl` (the upstream's description) as manual `upstream`. */
export async function createCodeModePeer(openapiUrl: string): Promise<CodeModePeer> {
  const manual = 'upstream';
  const client = await quietly(() => CodeModeUtcpClient.create());
  const registration = await quietly(() =>
    client.registerManual({
      name: manual,
      call_template_type: 'http',
      http_method: 'GET',
      url: openapiUrl,
    } as never),
  );
  if (!registration.success) {
    throw new Error(`the peer could not register the upstream: ${registration.errors.join('; ')}`);
  }
  return {
    manual,
    async run(code) {
      const { result, logs } = await quietly(() => client.callToolChain(code));
      const failure = logs.find((line) => line.includes('[ERROR]'));
      if (failure || result === null) throw new Error(`peer run failed: ${failure ?? 'no result'}`);
      return result;
    },
    close: () => quietly(() => client.close()),
  };
}
