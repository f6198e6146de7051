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
}

/** Reads CPU model, logical cores, total memory, OS, Node version and the current date. */
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
  };
}
