import { describe, expect, it } from 'vitest';
import {
  EXECUTION_EXIT_STATES,
  EXECUTION_STATES,
  isExecutionExitState,
  isExecutionState,
  isProcessState,
  PROCESS_STATES,
} from './execution';

describe('execution constants', () => {
  it('list the execution, exit and process states', () => {
    expect(EXECUTION_STATES).toEqual(['queued', 'running']);
    expect(EXECUTION_EXIT_STATES).toEqual(['failed', 'success', 'timeout', 'canceled']);
    expect(PROCESS_STATES).toEqual(['idle', 'queued', 'running', 'waiting', 'terminating']);
  });

  it('guard their values', () => {
    expect(isExecutionState('running')).toBe(true);
    expect(isExecutionState('idle')).toBe(false);
    expect(isExecutionExitState('timeout')).toBe(true);
    expect(isExecutionExitState('ok')).toBe(false);
    expect(isProcessState('terminating')).toBe(true);
    expect(isProcessState(undefined)).toBe(false);
  });
});
