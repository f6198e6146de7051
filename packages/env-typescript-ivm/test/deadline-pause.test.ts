import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type startEnvironment as Start, startEnvironment } from './recording-bindings';

/** How long the host holds a call, as if a person were deciding: longer than the run's deadline. */
const HOLD_MS = 1000;
const DEADLINE_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sandbox: Awaited<ReturnType<typeof Start>>;
/** Whether the held tools stop the deadline's clock while they hold the call. */
let pausing = true;

/** A tool the host holds for `ms`, stopping the caller's deadline meanwhile when `pausing`. */
const held = (ms: number) => async (_parameters: Record<string, unknown>, eid: number) => {
  if (pausing) sandbox.env.pauseDeadline?.(eid, true);
  await sleep(ms);
  if (pausing) sandbox.env.pauseDeadline?.(eid, false);
  return 'approved';
};

beforeAll(async () => {
  sandbox = await startEnvironment(
    { poolSize: 1 },
    { 'approval.wait': held(HOLD_MS), 'approval.short': held(DEADLINE_MS + 100) },
  );
});
afterAll(() => sandbox.env.teardown());

describe('pauseDeadline', () => {
  it('keeps a run whose call the host holds past its deadline alive while paused', async () => {
    pausing = true;
    const { exit, record } = await sandbox.run(
      `const answer = await cyrnel.services.approval.tools.wait.invoke({});
       cyrnel.output({ answer });`,
      DEADLINE_MS,
    );
    expect(record.errors).toEqual([]);
    expect(exit).toBe('success');
    expect(record.output).toEqual({ answer: 'approved' });
  });

  it('lets the same run time out when nothing pauses its deadline', async () => {
    pausing = false;
    const { exit } = await sandbox.run(`await cyrnel.services.approval.tools.wait.invoke({});`, DEADLINE_MS);
    expect(exit).toBe('timeout');
  });

  it('is paused and resumed several times in one run, each time going on with what was left', async () => {
    pausing = true;
    const { exit, record } = await sandbox.run(
      `const answers: string[] = [];
       for (let i = 0; i < 3; i++) answers.push(await cyrnel.services.approval.tools.short.invoke({}));
       cyrnel.output({ answers });`,
      DEADLINE_MS,
    );
    expect(exit).toBe('success');
    expect(record.output).toEqual({ answers: ['approved', 'approved', 'approved'] });
  });

  it('still counts the time a paused run spends computing', async () => {
    pausing = true;
    // The call is held (and the clock paused), but the program never awaits it: it loops.
    const { exit } = await sandbox.run(
      `void cyrnel.services.approval.tools.wait.invoke({});
       while (true) {}`,
      DEADLINE_MS,
    );
    expect(exit).toBe('timeout');
  });

  it('ignores unknown and finished executions', async () => {
    pausing = false;
    const { exit, eid } = await sandbox.run('cyrnel.output({ ok: true });');
    expect(exit).toBe('success');
    expect(() => sandbox.env.pauseDeadline?.(eid, true)).not.toThrow();
    expect(() => sandbox.env.pauseDeadline?.(9999, true)).not.toThrow();
    // The pool still runs and times out as before.
    const { exit: next } = await sandbox.run(
      'await new Promise(() => setTimeout(() => {}, 5000));',
      DEADLINE_MS,
    );
    expect(next).toBe('timeout');
  });
});
