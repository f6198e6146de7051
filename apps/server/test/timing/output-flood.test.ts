import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

/** Programs flooding `cyrnel.output` at once: each as many calls as it can make in its time. */
const PROGRAMS = 4;
/** How long each program calls `cyrnel.output` in a loop. */
const FLOOD_MS = 4_000;

/**
 * A program that calls `cyrnel.output` in a loop for `FLOOD_MS` (a counter and one of 500 keys
 * each time), then outputs how many calls it made and what its last ones wrote.
 */
const FLOOD = `
  const until = Date.now() + ${FLOOD_MS};
  let calls = 0;
  while (Date.now() < until) {
    cyrnel.output({ i: calls, ['k' + (calls % 500)]: { at: calls, pad: 'x'.repeat(40) } });
    calls++;
  }
  cyrnel.output({ calls });
`;

describe('cyrnel.output and console.log in a loop', () => {
  const { api, url } = useServer({ maxTimeoutMs: 120_000 });

  it('keeps /health prompt while four programs flood their output, and keeps every key', async () => {
    const results = await expectHealthDuring(
      `/health while ${PROGRAMS} programs call cyrnel.output in a loop`,
      url(),
      () =>
        Promise.all(
          Array.from({ length: PROGRAMS }, () =>
            api('POST', '/processes', { code: FLOOD, wait: true, timeoutMs: 60_000 }),
          ),
        ),
    );
    for (const { body } of results) {
      expect(body).toMatchObject({ exitState: 'success' });
      const output = body.output as Record<string, unknown>;
      const calls = output.calls as number;
      console.log(`a flooding program made ${calls} cyrnel.output calls`);
      expect(calls).toBeGreaterThan(500);
      // The merged output is what the last calls wrote: the counter and every one of the 500 keys.
      expect(output.i).toBe(calls - 1);
      for (let back = 1; back <= 500; back++) {
        const at = calls - back;
        expect(output[`k${at % 500}`]).toEqual({ at, pad: 'x'.repeat(40) });
      }
    }
  });

  it('keeps /health prompt while four programs flood console.log, each cut at its stdout cap in order', async () => {
    // The first lines leave the isolate without waiting, the rest wait for the child's count.
    const code = `
      const until = Date.now() + ${FLOOD_MS / 2};
      let lines = 0;
      while (Date.now() < until) console.log('line', lines++, 'x'.repeat(1000));
      cyrnel.output({ lines });`;
    const results = await expectHealthDuring(
      `/health while ${PROGRAMS} programs call console.log in a loop`,
      url(),
      () =>
        Promise.all(
          Array.from({ length: PROGRAMS }, () =>
            api('POST', '/processes', { code, wait: true, timeoutMs: 60_000 }),
          ),
        ),
    );
    for (const { body } of results) {
      expect(body).toMatchObject({ exitState: 'success' });
      const stdout = body.stdout as string;
      // Cut at the default cap (1 MiB), maybe inside a line: the kept lines are the first ones, in order.
      const marker = '\n[cyrnel: stdout truncated at 1048576 bytes]\n';
      expect(stdout.endsWith(marker)).toBe(true);
      const kept = stdout.slice(0, -marker.length);
      expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(1_048_576);
      const lines = kept.split('\n').slice(0, -1);
      expect(lines.length).toBeGreaterThan(1_000);
      expect(lines.every((line, i) => line === `line ${i} ${'x'.repeat(1000)}`)).toBe(true);
      expect((body.output as { lines: number }).lines).toBeGreaterThan(lines.length);
    }
  });
});
