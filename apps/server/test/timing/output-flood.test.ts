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

describe('cyrnel.output in a loop', () => {
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
});
