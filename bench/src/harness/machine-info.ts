import os from 'node:os';

/** The machine a run happened on, written beside its results. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly platform: string;
  readonly node: string;
  readonly date: string;
  /** 1-minute load average when the run started: other work on the machine skews every number. */
  readonly loadAverage: number;
  /** What the machine's speed was when the run started ({@link speedProbes}). */
  readonly speed: SpeedProbes;
}

/**
 * Two probes of the machine's speed at the start of a run, so runs on one machine can be compared
 * (the floors make ratios within a run fair; these say why two runs' milliseconds differ). On the
 * 2-core VMs the committed runs came from, a 4 KiB page touched for the first time cost 13–16 µs
 * (an ordinary Linux machine: well under 1 µs), so work that allocates fresh memory (a new
 * process, a large body or answer) is slow there whatever the code does.
 */
export interface SpeedProbes {
  /** A fixed loop of 50 million integer steps on the main thread (the fastest of three), ms. */
  readonly loopMs: number;
  /** The first touch of one 4 KiB page of a fresh 32 MiB buffer (the fastest of three), µs. */
  readonly pageTouchUs: number;
}

const PAGE = 4096;
const PROBE_BYTES = 32 * 2 ** 20;

function loopOnce(): number {
  const start = performance.now();
  let x = 0;
  for (let i = 0; i < 50_000_000; i++) x = (x + i * 7) % 1_000_003;
  // Uses x so the loop cannot be dropped.
  return performance.now() - start + (x < 0 ? 1 : 0);
}

function pageTouchOnce(): number {
  const start = performance.now();
  const bytes = new Uint8Array(PROBE_BYTES);
  for (let i = 0; i < PROBE_BYTES; i += PAGE) bytes[i] = 1;
  return ((performance.now() - start) * 1000) / (PROBE_BYTES / PAGE);
}

/**
 * Measures the {@link SpeedProbes} (about a second on a slow machine).
 *
 * @example
 * ```ts
 * speedProbes(); // { loopMs: 199.1, pageTouchUs: 13.3 }
 * ```
 */
export function speedProbes(): SpeedProbes {
  const loops: number[] = [];
  const touches: number[] = [];
  for (let round = 0; round < 3; round++) {
    loops.push(loopOnce());
    touches.push(pageTouchOnce());
  }
  return {
    loopMs: Math.round(Math.min(...loops) * 10) / 10,
    pageTouchUs: Math.round(Math.min(...touches) * 100) / 100,
  };
}

/**
 * Reads CPU model, logical cores, total memory, OS, Node version, the current date and load, and
 * the {@link speedProbes}.
 */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    date: new Date().toISOString(),
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    speed: speedProbes(),
  };
}
