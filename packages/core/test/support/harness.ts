import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ApprovalStorage,
  type CatalogStorage,
  type CreateHostOptions,
  type CyrnelHost,
  createHost,
  createMemoryApprovalStorage,
  createMemoryCatalogStorage,
  createMemoryKeyStorage,
  createMemoryProcessStorage,
  type KeyStorage,
  type ProcessStorage,
} from '../../src/index';

/** The storages a harness's hosts share: core's in-memory ones, kept across restarts. */
export interface HarnessStorage {
  readonly catalog: CatalogStorage;
  readonly processes: ProcessStorage;
  readonly keys: KeyStorage;
  readonly approvals: ApprovalStorage;
}

/**
 * A host on in-memory storages and a data directory (for custom modules) in a temp folder;
 * `restart()` closes the host and starts another on the same storages, as a server restarted on
 * the same database would.
 */
export interface Harness {
  readonly dataDir: string;
  readonly storage: HarnessStorage;
  host: CyrnelHost;
  /** Close the host, then start one again with (possibly changed) options. */
  restart(options?: Partial<CreateHostOptions>): Promise<void>;
  close(): Promise<void>;
}

/** Fresh in-memory storages. */
export function createHarnessStorage(): HarnessStorage {
  return {
    catalog: createMemoryCatalogStorage(),
    processes: createMemoryProcessStorage(),
    keys: createMemoryKeyStorage(),
    approvals: createMemoryApprovalStorage(),
  };
}

/** Start a host on `storage` (fresh in-memory storages by default). */
export async function createHarness(
  options: Partial<CreateHostOptions> = {},
  storage: HarnessStorage = createHarnessStorage(),
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cyrnel-host-'));
  // These tests are about everything but the policies: every call is allowed unless a test
  // passes policies of its own (the policy tests do).
  let current: Partial<CreateHostOptions> = {
    secretsKey: randomBytes(32),
    policies: { default: { default: 'allow', byAnnotation: {} } },
    ...options,
  };
  const open = () =>
    createHost({
      dataDir,
      ...current,
      secretsKey: current.secretsKey ?? randomBytes(32),
      storage,
    });
  const harness: Harness = {
    dataDir,
    storage,
    host: await open(),
    async restart(next = {}) {
      await harness.host.close({ graceMs: 0 });
      current = { ...current, ...next };
      harness.host = await open();
    },
    async close() {
      await harness.host.close({ graceMs: 0 });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
