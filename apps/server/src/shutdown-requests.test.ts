import { describe, expect, it } from 'vitest';
import { createShutdownRequests } from './shutdown-requests';

describe('createShutdownRequests', () => {
  it('stops once for one Ctrl-C heard directly and through the launcher, forces on the second', () => {
    const requests = createShutdownRequests();
    expect(requests.request('signal')).toBe('stop');
    expect(requests.request('launcher')).toBe('ignore');
    expect(requests.request('launcher')).toBe('force');
    expect(createShutdownRequests().request('launcher')).toBe('stop');
  });

  it('forces on a second signal from the same source', () => {
    const requests = createShutdownRequests();
    expect(requests.request('signal')).toBe('stop');
    expect(requests.request('signal')).toBe('force');
  });

  it('never forces because the launcher went away', () => {
    const requests = createShutdownRequests();
    expect(requests.request('orphaned')).toBe('stop');
    expect(requests.request('orphaned')).toBe('ignore');
    expect(requests.request('signal')).toBe('ignore');
    expect(requests.request('signal')).toBe('force');
  });
});
