import { describe, expect, it } from 'vitest';
import { EFFICIENCY_META, efficiencyMeta } from './efficiency-meta';
import { type ProcessView, viewResult } from './process-view';

const metrics = { toolCalls: 2, toolResultBytes: 708, returnedBytes: 61, wallMs: 41.3, cpuMs: 2.1 };

const view: ProcessView = {
  processId: 7,
  state: 'idle',
  exitState: 'success',
  error: null,
  output: { total: 12 },
  stdout: '',
  stderr: '',
  approvalId: null,
  approvalUrl: null,
  toolCalls: [],
  efficiency: efficiencyMeta(metrics),
};

describe('the efficiency meter over MCP', () => {
  it('goes in _meta with its ratio and sentence, and not in what the model reads', () => {
    const result = viewResult(view, 20_000);
    expect(result._meta).toEqual({
      [EFFICIENCY_META]: {
        ...metrics,
        ratio: 11.61,
        summary: 'this run read 708 B from tools in 2 calls and returned 61 B to the model (11.61× less)',
      },
    });
    expect(result.structuredContent).not.toHaveProperty('efficiency');
    expect(result.content[0]?.text).not.toContain('toolResultBytes');
  });

  it('is absent while the run has no metrics', () => {
    expect(efficiencyMeta(null)).toBeUndefined();
    const { efficiency: _none, ...running } = view;
    expect(viewResult({ ...running, state: 'running', exitState: null }, 20_000)).not.toHaveProperty('_meta');
  });
});
