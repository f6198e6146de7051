import { describe, expect, it } from 'vitest';
import type { Crash } from './crash-message';
import { judgeCrash } from './crash-verdict';

const ABORT: Crash = { what: 'the sandbox process aborted (most likely out of memory)', computing: true };
const KILLED: Crash = { what: 'the sandbox process exited unexpectedly (SIGKILL)', computing: false };
const held = (eid: number, touched: boolean, awaiting: boolean, forced = false) => ({
  eid,
  touched,
  awaiting,
  forced,
});
const summary = (crash: Crash, executions: ReturnType<typeof held>[]) =>
  Object.fromEntries(
    [...judgeCrash(crash, executions)].map(([eid, end]) => [
      eid,
      `${end.reason}${end.retry ? ` ${end.retry}` : ''}`,
    ]),
  );

describe('judgeCrash', () => {
  it('fails the execution the child named as crashed, runs untouched others again, fails touched ones as collateral', () => {
    const crash = { ...ABORT, culprit: 2 };
    expect(summary(crash, [held(1, false, true), held(2, false, true), held(3, true, true)])).toEqual({
      1: 'sandbox_collateral shared',
      2: 'sandbox_crashed',
      3: 'sandbox_collateral',
    });
  });

  it('blames the only execution computing when V8 aborted, but not when the process was killed from outside', () => {
    const executions = [held(1, false, true), held(2, true, false), held(3, true, true)];
    expect(summary(ABORT, executions)).toEqual({
      1: 'sandbox_collateral shared',
      2: 'sandbox_crashed',
      3: 'sandbox_collateral',
    });
    expect(summary(KILLED, executions)).toEqual({
      1: 'sandbox_crashed alone',
      2: 'sandbox_crashed',
      3: 'sandbox_crashed',
    });
  });

  it('blames the one being stopped when the host killed an unresponsive child, keeping its own end', () => {
    expect(summary(KILLED, [held(1, true, false, true), held(2, false, true), held(3, true, true)])).toEqual({
      2: 'sandbox_collateral shared',
      3: 'sandbox_collateral',
    });
  });

  it('fails the only execution as crashed, however it looked', () => {
    expect(summary(KILLED, [held(1, false, true)])).toEqual({ 1: 'sandbox_crashed' });
  });
});
