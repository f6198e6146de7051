import { describe, expect, it } from 'vitest';
import { boundedToolLabels, OTHER_LABEL, upstreamClass } from './metrics-labels';

describe('boundedToolLabels', () => {
  it('keeps the first pairs it sees and counts every later one as _other', () => {
    const labels = boundedToolLabels(2);
    expect(labels('shop', 'getUser')).toEqual({ service: 'shop', tool: 'getUser' });
    expect(labels('shop', 'listOrders')).toEqual({ service: 'shop', tool: 'listOrders' });
    expect(labels('github', 'issues')).toEqual({ service: OTHER_LABEL, tool: OTHER_LABEL });
    // A pair already seen keeps its labels.
    expect(labels('shop', 'getUser')).toEqual({ service: 'shop', tool: 'getUser' });
  });
});

describe('upstreamClass', () => {
  it('classes by HTTP status, else by how the call ended', () => {
    expect(upstreamClass({ ok: true, status: 204 })).toBe('2xx');
    expect(upstreamClass({ ok: true, status: 302 })).toBe('3xx');
    expect(upstreamClass({ ok: true, status: 404 })).toBe('4xx');
    expect(upstreamClass({ ok: true, status: 503 })).toBe('5xx');
    expect(upstreamClass({ ok: false, status: null })).toBe('network_error');
    expect(upstreamClass({ ok: true, status: null })).toBe('no_status');
  });
});
