import { describe, expect, it } from 'vitest';
import { createLogger } from './create-logger';
import { createLogRing } from './log-ring';
import { ringLogger } from './ring-logger';
import { teeLogger } from './tee-logger';

describe('createLogRing', () => {
  it('keeps the newest lines, numbered, oldest first, and tells its followers', () => {
    const ring = createLogRing({ capacity: 3 });
    const followed: number[] = [];
    const stop = ring.subscribe((line) => followed.push(line.seq));
    for (const n of [1, 2, 3, 4, 5]) ring.write('info', `line ${n}`, {});
    expect(ring.lines().map((line) => [line.seq, line.msg])).toEqual([
      [3, 'line 3'],
      [4, 'line 4'],
      [5, 'line 5'],
    ]);
    stop();
    ring.write('info', 'line 6', {});
    expect(followed).toEqual([1, 2, 3, 4, 5]);
  });

  it('lifts the component and the process out of the fields, the rest kept as JSON', () => {
    const ring = createLogRing({ capacity: 10 });
    ring.write('warn', 'events stream dropped', { component: 'http', processId: 7, requestId: 'r' });
    ring.write('error', 'process: checkpoint failed', {
      component: 'core',
      id: 9,
      error: new Error('disk full'),
    });
    ring.write('info', 'approvals: reading a decision failed', { id: 'ap_x', big: 10n });
    const [first, second, third] = ring.lines();
    expect(first).toMatchObject({
      level: 'warn',
      component: 'http',
      processId: 7,
      fields: { requestId: 'r' },
    });
    expect(second).toMatchObject({ component: 'core', processId: 9, fields: { id: 9, error: 'disk full' } });
    // An approval's id is no process's.
    expect(third).toMatchObject({ component: null, processId: null, fields: { id: 'ap_x', big: '10' } });
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('bounds each line: long fields become a preview, a cycle is said, not thrown', () => {
    const ring = createLogRing({ capacity: 10, maxFieldsChars: 100 });
    ring.write('info', 'big', { blob: 'x'.repeat(10_000) });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    ring.write('info', 'cyclic', { cyclic });
    ring.write('info', 'y'.repeat(10_000), {});
    const [big, cycle, long] = ring.lines();
    expect(big?.fields).toEqual({ truncated: expect.stringMatching(/^\{"blob":"x+…$/), chars: 10_011 });
    expect(JSON.stringify(big).length).toBeLessThan(400);
    expect(cycle?.fields).toEqual({ unserializable: true });
    expect(long?.msg.length).toBeLessThanOrEqual(4097);
  });

  it('keeps nothing with a capacity of 0', () => {
    const ring = createLogRing({ capacity: 0 });
    ring.write('error', 'lost', {});
    expect(ring.lines()).toEqual([]);
  });
});

describe('ringLogger and teeLogger', () => {
  it('keep every line at the ring level in the ring, whatever the output writes, children included', () => {
    const ring = createLogRing({ capacity: 10 });
    const written: string[] = [];
    const output = createLogger({ level: 'error', write: (line) => written.push(line) });
    const logger = teeLogger(output, ringLogger(ring, 'info')).child({ component: 'core' });
    logger.debug('not kept');
    logger.info('kept', { module: 'openapi' });
    logger.error('both');
    logger.announce('listening', { url: 'http://127.0.0.1:1' });
    expect(ring.lines().map((line) => [line.level, line.msg, line.component])).toEqual([
      ['info', 'kept', 'core'],
      ['error', 'both', 'core'],
      ['info', 'listening', 'core'],
    ]);
    // The output kept its own level (and writes the announcement whatever it is).
    expect(written.map((line) => JSON.parse(line).msg)).toEqual(['both', 'listening']);
  });
});
