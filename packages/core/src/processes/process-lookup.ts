import type { ProcessRecord } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import type { LiveProcess } from './live-process';
import type { ProcessResults, ProcessStorage } from './process-storage';

/** A process as the manager reads it: the run in memory first, the store otherwise. */
export interface ProcessLookup {
  /** The stored record (404 `process_not_found` without one). */
  stored(id: number): Promise<ProcessRecord>;
  /** The stored results, empty when none were written. */
  storedResults(id: number): Promise<ProcessResults>;
  /** The live run of `id` unless it has ended; an ended one is awaited until persisted. */
  activeRun(id: number): Promise<LiveProcess | undefined>;
  /** The results of an idle process (409 `process_not_idle` otherwise). */
  idleResults(id: number): Promise<ProcessResults>;
}

/** Create the reads the API's operations share. */
export function createProcessLookup(storage: ProcessStorage, live: Map<number, LiveProcess>): ProcessLookup {
  const stored = async (id: number): Promise<ProcessRecord> => {
    const record = await storage.get(id);
    if (!record) throw cyrnelError('process_not_found', `process ${id} not found`);
    return record;
  };

  const activeRun = async (id: number): Promise<LiveProcess | undefined> => {
    const run = live.get(id);
    if (!run) return undefined;
    if (!run.finished) return run;
    await run.settled;
    return undefined;
  };

  const storedResults = async (id: number) =>
    (await storage.results(id)) ?? { output: {}, stdout: '', stderr: '' };

  const idleResults = async (id: number) => {
    if (await activeRun(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    const record = await stored(id);
    if (record.state !== 'idle') throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    return storedResults(id);
  };

  return { stored, storedResults, activeRun, idleResults };
}
