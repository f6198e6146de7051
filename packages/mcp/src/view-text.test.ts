import { describe, expect, it } from 'vitest';
import type { ProcessView } from './process-view';
import { viewText } from './process-view';
import { INSTRUCTIONS } from './server';

const finished: ProcessView = {
  processId: 7,
  state: 'idle',
  exitState: 'success',
  error: null,
  output: { city: 'Lima', fahrenheit: 64.4 },
  stdout: 'two calls done\n',
  stderr: '',
  approvalId: null,
  approvalUrl: null,
  toolCalls: [
    {
      serviceId: 'weather',
      toolId: 'getForecast',
      ok: true,
      durationMs: 3,
      errorReason: null,
      decision: { policy: 'allow', rule: 'server-annotation', detail: 'readOnly', outcome: 'allowed' },
    },
  ],
};

describe('viewText', () => {
  it('heads a finished process with its exit state and carries the whole view as JSON', () => {
    const text = viewText(finished, 20_000);
    const [head, ...rest] = text.split('\n');
    expect(head).toBe('Process 7 finished: success.');
    expect(JSON.parse(rest.join('\n'))).toEqual(finished);
  });

  it('names the error of a failed process in the head', () => {
    const text = viewText({ ...finished, exitState: 'failed', error: 'Error: boom', output: {} }, 20_000);
    expect(text.split('\n')[0]).toBe('Process 7 finished: failed (Error: boom).');
  });

  it('tells the model to call get_process while the process still runs', () => {
    const text = viewText({ ...finished, state: 'running', exitState: null, output: {}, stdout: '' }, 20_000);
    expect(text.split('\n')[0]).toBe(
      'Process 7 is still running. Call get_process with processId 7 to wait for its result.',
    );
  });

  it('tells the model where a person approves a waiting run, and to call wait_process', () => {
    const text = viewText(
      {
        ...finished,
        state: 'waiting',
        exitState: null,
        output: { step: 'before' },
        approvalId: 'ap_1',
        approvalUrl: 'http://127.0.0.1:9371/ui/approvals/ap_1',
      },
      20_000,
    );
    const head = text.split('\n')[0];
    expect(head).toContain('Process 7 waits for approval ap_1');
    expect(head).toContain('http://127.0.0.1:9371/ui/approvals/ap_1');
    expect(head).toContain('call wait_process with processId 7');
  });

  it('cuts long text at the limit with a marker naming how much was cut', () => {
    const big = { ...finished, output: { rows: 'x'.repeat(50_000) } };
    const whole = viewText(big, Number.POSITIVE_INFINITY);
    const cut = viewText(big, 1_000);
    expect(cut.startsWith(whole.slice(0, 1_000))).toBe(true);
    expect(cut).toContain(`[… truncated ${whole.length - 1_000} characters`);
    expect(cut.length).toBeLessThan(1_200);
  });
});

describe('INSTRUCTIONS', () => {
  it('names the tools in the order of the workflow', () => {
    const order = ['search_tools', 'get_tool_types', 'execute_typescript', 'get_process', 'wait_process'].map(
      (name) => INSTRUCTIONS.indexOf(name),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});
