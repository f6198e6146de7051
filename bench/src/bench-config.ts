/** The parts `--only` may name: each runs alone and writes `results/<part>.json` and `.md`. */
export const ONLY_PARTS = ['tool-calls', 'idle-rss', 'tracing', 'trivial'] as const;

/** A part `--only` runs alone. */
export type OnlyPart = (typeof ONLY_PARTS)[number];

/** Repetition counts of one run; `--quick` shrinks every one of them. */
export interface BenchConfig {
  readonly mode: 'full' | 'quick';
  /**
   * `--only tool-calls`: only the fetch floors and cyrnel's tool calls (results in `tool-calls.*`);
   * `--only idle-rss`: only the memory of a fresh server, just after start and idle (`idle-rss.*`);
   * `--only tracing`: only the cost of tracing on the tool-call chain (results in `tracing.*`);
   * `--only trivial`: only the trivial process against its floors and the peer, the throughput
   * rows and the CPU per trivial process (results in `trivial.*`).
   */
  readonly only?: OnlyPart;
  readonly warmup: number;
  /** Sequential single requests (trivial process, echo, in-process isolate, peer call). */
  readonly latencyReps: number;
  /** Repetitions of a 1,000-call chain. */
  readonly chainReps: number;
  /** Repetitions of a 100-call parallel batch. */
  readonly batchReps: number;
  readonly throughputSeconds: number;
  readonly concurrencies: readonly number[];
  /** Trivial processes run for the leak check. */
  readonly leakProcesses: number;
  /** How many copies of the GitHub description to install (each 1,223 tools). */
  readonly githubCopies: number;
  /** How many copies of GitHub's operations the search catalog holds (82: ~100k tools). */
  readonly searchCopies: number;
  /** Measured tool searches, rotating over the query mix. */
  readonly searchReps: number;
  readonly peerReps: number;
  /** Stop installing more GitHub copies once installs took this long in total. */
  readonly installBudgetMs: number;
  /**
   * The time budget of the whole run (`--budget-ms` overrides it): when it runs out, the run stops
   * where it is, reports the rows it reached with a warning, and exits 0 (a busy machine is not
   * a failure of the code under test).
   */
  readonly watchdogMs: number;
}

/** The configuration for the given command-line arguments. */
export function benchConfig(argv: readonly string[]): BenchConfig {
  const quick = argv.includes('--quick');
  const only = flagValue(argv, '--only');
  if (only !== undefined && !(ONLY_PARTS as readonly string[]).includes(only))
    throw new Error(`--only: unknown part ${only} (known: ${ONLY_PARTS.join(', ')})`);
  const budget = flagValue(argv, '--budget-ms');
  const budgetMs = budget === undefined ? undefined : Number(budget);
  if (budgetMs !== undefined && !(Number.isInteger(budgetMs) && budgetMs > 0))
    throw new Error(`--budget-ms: expected a positive whole number of milliseconds, got ${budget}`);
  return {
    ...modeConfig(quick),
    ...(only ? { only: only as OnlyPart } : {}),
    ...(budgetMs === undefined ? {} : { watchdogMs: budgetMs }),
  };
}

/** The value after `flag` in `argv`, if the flag is there. */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  const at = argv.indexOf(flag);
  return at >= 0 ? argv[at + 1] : undefined;
}

function modeConfig(quick: boolean): BenchConfig {
  return quick
    ? {
        mode: 'quick',
        warmup: 50,
        latencyReps: 100,
        chainReps: 1,
        batchReps: 5,
        throughputSeconds: 2,
        concurrencies: [1, 8, 32, 128],
        leakProcesses: 1_000,
        githubCopies: 2,
        searchCopies: 8,
        searchReps: 190,
        peerReps: 30,
        installBudgetMs: 20_000,
        watchdogMs: 110_000,
      }
    : {
        mode: 'full',
        warmup: 100,
        latencyReps: 1_000,
        chainReps: 5,
        batchReps: 30,
        throughputSeconds: 10,
        concurrencies: [1, 8, 32, 128],
        leakProcesses: 10_000,
        githubCopies: 8,
        searchCopies: 82,
        searchReps: 1_900,
        peerReps: 200,
        installBudgetMs: 240_000,
        watchdogMs: 1_200_000,
      };
}
