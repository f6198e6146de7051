import { afterEach } from 'vitest';
import type { EgressGateway } from '../gateway/egress-gateway';
import {
  createMemoryProcessStorage,
  createProcessManager,
  type ProcessHostOptions,
  type ProcessLimits,
  type ProcessManager,
  type ProcessStorage,
} from '../index';
import { createScriptEnvironment, type ScriptEnvironment } from './script-environment';
import { createMapToolGateway, createTestEnvironments, type TestEnvironments } from './test-host';

/** Options of {@link createTestManager}. */
export interface TestManagerOptions {
  /** The environment; default a script environment with a pool of 2, `null` for none. */
  readonly env?: ScriptEnvironment | null;
  /** Limits over `{ killGraceMs: 50 }`. */
  readonly limits?: Partial<ProcessLimits>;
  /** Default: a fresh memory storage. */
  readonly storage?: ProcessStorage;
  /** This host among several on `storage` (see `ProcessManagerOptions.host`); default none. */
  readonly host?: ProcessHostOptions;
  /** The manager's clock; default the real one. */
  readonly now?: () => Date;
  /** The egress gateway whose calls the runs record (`ProcessManagerOptions.egress`); default none. */
  readonly egress?: EgressGateway;
  /** More tools beside `math`, by `service.tool`. */
  readonly tools?: ReadonlyMap<string, (parameters: Record<string, unknown>) => Promise<unknown>>;
}

/** A process manager on test scaffolding, and what the tests inspect. */
export interface TestManager {
  readonly manager: ProcessManager;
  readonly api: ProcessManager['api'];
  readonly env: ScriptEnvironment;
  readonly environments: TestEnvironments;
  readonly storage: ProcessStorage;
}

const logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Test scaffolding: a process manager whose environment is set up with its bindings, and the
 * `math` tools (`double`, `count`, `hang`). The caller closes `manager`.
 */
export async function createTestManager(options: TestManagerOptions = {}): Promise<TestManager> {
  const storage = options.storage ?? createMemoryProcessStorage();
  const env = options.env === null ? undefined : (options.env ?? createScriptEnvironment());
  const environments = createTestEnvironments(env);
  let counter = 0;
  const tools = createMapToolGateway(
    new Map<string, (parameters: Record<string, unknown>) => Promise<unknown>>([
      ['math.double', async (parameters) => ({ value: Number(parameters.n) * 2 })],
      ['math.count', async () => ++counter],
      ['math.hang', () => new Promise(() => {})],
      ...(options.tools ?? []),
    ]),
  );
  const manager = createProcessManager({
    storage,
    environments,
    tools,
    logger,
    limits: { killGraceMs: 50, ...options.limits },
    ...(options.host ? { host: options.host } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.egress ? { egress: options.egress } : {}),
  });
  await env?.setup({ config: {}, secrets: {}, logger, bindings: manager.bindings } as never);
  return { manager, api: manager.api, env: env as ScriptEnvironment, environments, storage };
}

/**
 * `createTestManager` for one test file: every manager it creates is closed (no grace) after
 * each test. Call it at the top level of the file.
 */
export function trackTestManagers(): (options?: TestManagerOptions) => Promise<TestManager> {
  const managers: ProcessManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((manager) => manager.close({ graceMs: 0 })));
  });
  return async (options = {}) => {
    const started = await createTestManager(options);
    managers.push(started.manager);
    return started;
  };
}

/** A program that never ends on its own. */
export const HANGS = 'await new Promise(() => {})';

/** Resolve once process `id` reports `running`. */
export function runningOf(api: ProcessManager['api'], id: number): Promise<void> {
  return new Promise((resolve) => {
    api.subscribe(id, (event) => {
      if (event.type === 'state' && event.data.state === 'running') resolve();
    });
  });
}
