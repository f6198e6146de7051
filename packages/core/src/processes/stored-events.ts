import type { ProcessEvent, ProcessRecord } from '@cyrnel/sdk/api';
import type { ProcessResults } from './process-storage';

/**
 * The replay of a process that is not live, synthesized from what is stored: its state, then
 * (when it has run) stdout, stderr and output as one event each, and the exit.
 */
export function storedEvents(record: ProcessRecord, results: ProcessResults | undefined): ProcessEvent[] {
  const events: ProcessEvent[] = [
    { type: 'state', data: { state: record.state, exitState: record.exitState } },
  ];
  if (results?.stdout) events.push({ type: 'stdout', data: { text: results.stdout } });
  if (results?.stderr) events.push({ type: 'stderr', data: { text: results.stderr } });
  if (results && Object.keys(results.output).length > 0) {
    events.push({ type: 'output', data: { patch: results.output } });
  }
  if (record.state === 'idle' && record.exitState !== null) {
    events.push({
      type: 'exit',
      data: { exitState: record.exitState, error: record.error, errorReason: record.errorReason },
    });
  }
  return events;
}
