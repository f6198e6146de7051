import { readdirSync, readFileSync } from 'node:fs';

/** Resident and peak resident memory of one process, in MB (from /proc/<pid>/status). */
export interface ProcMemory {
  readonly rssMb: number;
  readonly hwmMb: number;
}

/** Reads VmRSS and VmHWM of `pid`; undefined when the process is gone or /proc is missing. */
export function procMemory(pid: number): ProcMemory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `pid` (children, grandchildren...), by scanning /proc/<n>/stat. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields resume after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while scanning.
    }
  }
  const found: number[] = [];
  const frontier = [pid];
  while (frontier.length) {
    const parent = frontier.pop() as number;
    for (const [child, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(child);
        frontier.push(child);
      }
    }
  }
  return found;
}

// Linux reports utime/stime in clock ticks of 1/100 s on every mainstream architecture.
const TICK_MS = 10;

/** User + system CPU milliseconds a process has used so far (0 when it is gone). */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name: state is field 3, utime field 14 and stime field 15 (1-based).
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU milliseconds used so far by the threads of `pid` named `name` (`/proc/<pid>/task/<tid>/comm`:
 * Node names its main thread `MainThread` and worker threads `WorkerThread`).
 */
export function threadsCpuMs(pid: number, name: string): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let sum = 0;
  for (const tid of tids) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() !== name) continue;
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      // The thread ended while reading.
    }
  }
  return sum;
}

/** CPU milliseconds used so far by a process and, separately, by its live descendants. */
export function treeCpuMs(pid: number): { readonly mainMs: number; readonly childrenMs: number } {
  return { mainMs: procCpuMs(pid), childrenMs: descendants(pid).reduce((sum, p) => sum + procCpuMs(p), 0) };
}

/** RSS of a process and of all its descendants, in MB. */
export interface TreeMemory {
  readonly mainMb: number;
  readonly mainPeakMb: number;
  readonly childrenMb: number;
  readonly children: number;
  readonly totalMb: number;
}

/** Sums the RSS of `pid` and its descendants. */
export function treeMemory(pid: number): TreeMemory {
  const main = procMemory(pid);
  const kids = descendants(pid)
    .map(procMemory)
    .filter((m): m is ProcMemory => m !== undefined);
  const childrenMb = kids.reduce((sum, m) => sum + m.rssMb, 0);
  const mainMb = main?.rssMb ?? Number.NaN;
  return {
    mainMb,
    mainPeakMb: main?.hwmMb ?? Number.NaN,
    childrenMb,
    children: kids.length,
    totalMb: mainMb + childrenMb,
  };
}
