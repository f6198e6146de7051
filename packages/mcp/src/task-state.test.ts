import { describe, expect, it } from 'vitest';
import { legacyTask, modernTask, type TaskSource, taskStatusOf } from './task-state';

const source = (fields: Partial<TaskSource>): TaskSource => ({
  id: 7,
  state: 'running',
  exitState: null,
  error: null,
  approvalId: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
  ...fields,
});

describe('task states of processes', () => {
  it('maps a process to the status of each revision', () => {
    const cases: [Partial<TaskSource>, string, string][] = [
      [{ state: 'queued' }, 'working', 'working'],
      [{ state: 'running' }, 'working', 'working'],
      [{ state: 'terminating' }, 'working', 'working'],
      [{ state: 'waiting', approvalId: 'ap_1' }, 'input_required', 'input_required'],
      [{ state: 'idle', exitState: 'success' }, 'completed', 'completed'],
      // A tool error: failed in 2025-11-25, a completed result in the 2026-07-28 extension.
      [{ state: 'idle', exitState: 'failed' }, 'failed', 'completed'],
      [{ state: 'idle', exitState: 'timeout' }, 'failed', 'completed'],
      [{ state: 'idle', exitState: 'canceled' }, 'cancelled', 'cancelled'],
    ];
    for (const [fields, legacy, modern] of cases) {
      expect(taskStatusOf(source(fields), 'legacy'), JSON.stringify(fields)).toBe(legacy);
      expect(taskStatusOf(source(fields), 'modern'), JSON.stringify(fields)).toBe(modern);
    }
    expect(taskStatusOf(source({ state: 'waiting', approvalId: 'ap_1' }), 'modern', false)).toBe('working');
  });

  it('shapes a task per revision: ttl and pollInterval, or ttlMs and pollIntervalMs; none to poll once it ended', () => {
    const timing = { ttlMs: 60_000, pollIntervalMs: 500 };
    expect(legacyTask('t', source({}), timing, undefined)).toEqual({
      taskId: 't',
      status: 'working',
      statusMessage: 'Process 7 is running.',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUpdatedAt: '2026-01-01T00:00:01.000Z',
      ttl: 60_000,
      pollInterval: 500,
    });
    const ended = modernTask(
      't',
      source({ state: 'idle', exitState: 'failed', error: 'nope' }),
      timing,
      undefined,
      true,
    );
    expect(ended).toEqual({
      taskId: 't',
      status: 'completed',
      statusMessage: 'Process 7 finished: failed (nope).',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUpdatedAt: '2026-01-01T00:00:01.000Z',
      ttlMs: 60_000,
    });
  });

  it('names the approval and where a person decides it', () => {
    const waiting = legacyTask(
      't',
      source({ state: 'waiting', approvalId: 'ap_9' }),
      { ttlMs: null, pollIntervalMs: 1 },
      'https://cyrnel.example/',
    );
    expect(waiting.statusMessage).toContain('waits for approval ap_9');
    expect(waiting.statusMessage).toContain('https://cyrnel.example/ui/approvals/ap_9');
    expect(waiting.ttl).toBeNull();
  });
});
