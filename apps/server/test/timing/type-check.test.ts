import { describe, expect, it } from 'vitest';
import { manyToolsSpec, useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

// A type check runs TypeScript's checker over code an agent wrote: types that cost it seconds, and
// code that nests as deep as the parser recurses, are the attacks. The check runs in a worker
// thread under a deadline and a heap limit, so `/health` keeps answering (compared, as every
// timing test, against a second of probes without the attack: `vitest.timing.ts`).

/** The check's deadline in these tests: the costly program below needs several times this. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * Twenty assignments between unions of 10,000 tuples and objects: ≈ 0.5 s of the checker's time
 * each on a 2-core machine, ≈ 10 s in all, which would stall the event loop as long on the main
 * thread; in the worker, the deadline stops it.
 */
function costlyTypes(): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal type of the checked TypeScript
  const digits = "type D = '0'|'1'|'2'|'3'|'4'|'5'|'6'|'7'|'8'|'9'; type N = `${D}${D}${D}${D}`;";
  const statements = Array.from(
    { length: 20 },
    (_, i) =>
      `type O${i} = { [K in N]: [K, K, ${i}] }[N]; type Q${i} = { [K in N]: { 0: K; 2: ${i} } }[N]; const o${i} = null! as O${i}; const q${i}: Q${i} = o${i};`,
  );
  return [digits, ...statements].join('\n');
}

describe('type checks under hostile code', () => {
  const { api, url } = useServer();

  it('stops types that cost the checker seconds at the deadline while /health keeps answering', async () => {
    const patched = await api('PATCH', '/modules/typescript-ivm/config', [
      { op: 'add', path: '/typecheckTimeoutMs', value: CHECK_TIMEOUT_MS },
    ]);
    expect(patched.status).toBe(200);
    const code = costlyTypes();
    const answers = await expectHealthDuring(
      '/health while two costly programs are type-checked',
      url(),
      () =>
        Promise.all([
          api('POST', '/processes', { code, check: true }),
          api('POST', '/processes', { code, check: true }),
        ]),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ reason: 'invalid_request' });
      expect(answer.body.error).toContain(`the check took longer than ${CHECK_TIMEOUT_MS} ms`);
    }
    // The worker that missed its deadline was replaced: the next check answers.
    const next = await api('POST', '/processes', { code: 'const n: number = "one";', check: true });
    expect(next.body.diagnostics).toMatchObject([{ line: 1, column: 7, code: 2322 }]);
    // The default deadline again for the checks that follow.
    const restored = await api('PATCH', '/modules/typescript-ivm/config', [
      { op: 'remove', path: '/typecheckTimeoutMs' },
    ]);
    expect(restored.status).toBe(200);
  });

  it('answers enormous and deeply nested code without stalling /health', async () => {
    await api('POST', '/services', {
      id: 'things',
      adapter: 'openapi',
      definition: JSON.stringify(manyToolsSpec(100)),
      enabled: true,
    });
    // Nearly 100 KB of calls to 100 tools (the declarations of each), 45,000 brackets in a type,
    // 40,000 parentheses in an expression, and a program over the size limit.
    const calls = Array.from(
      { length: 1_400 },
      (_, i) => `const r${i} = await cyrnel.services.things.tools.listThings${i % 100}.invoke({});`,
    ).join('\n');
    const brackets = `type T = ${'['.repeat(45_000)}string${']'.repeat(45_000)};`;
    const parentheses = `const x = ${'('.repeat(40_000)}1${')'.repeat(40_000)};`;
    const tooLarge = `// ${'x'.repeat(101 * 1024)}`;
    for (const code of [calls, brackets, parentheses])
      expect(Buffer.byteLength(code)).toBeLessThan(100 * 1024);
    const [many, nested, deep, large] = await expectHealthDuring(
      '/health while enormous and deeply nested programs are type-checked',
      url(),
      () =>
        Promise.all(
          [calls, brackets, parentheses, tooLarge].map((code) =>
            api('POST', '/processes', { code, check: true }),
          ),
        ),
    );
    expect(many).toMatchObject({ status: 201, body: { diagnostics: [] } });
    for (const answer of [nested, deep]) {
      expect(answer?.status).toBe(400);
      expect(answer?.body.error).toContain('nested too deeply to be type-checked');
    }
    expect(large).toMatchObject({ status: 413, body: { reason: 'payload_too_large' } });
  });
});
