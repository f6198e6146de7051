import { isCyrnelError } from '@cyrnel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypescriptEnvironment } from '../src';
import { findToolCalls } from '../src/tool-calls/find-tool-calls';
import { startEnvironment } from './recording-bindings';

let env: Awaited<ReturnType<typeof startEnvironment>>['env'];

beforeAll(async () => {
  ({ env } = await startEnvironment());
});
afterAll(() => env.teardown());

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown> | undefined): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('it resolved');
}

describe('typescript-ivm findToolCalls', () => {
  it('finds the calls in its worker as the analyzer does in-thread', async () => {
    const code = [
      'type Issue = { id: number };',
      'const issues: Issue[] = await cyrnel.services.github.tools.issues_list.invoke({});',
      'const { tools } = cyrnel.services.slack;',
      'for (const issue of issues) await tools.post.invoke({ text: String(issue.id) });',
      'const which: string = issues.length > 3 ? "many" : "few";',
      "await cyrnel.invoke('audit', which, {});",
    ].join('\n');
    const found = await env.findToolCalls?.(code);
    expect(found).toEqual({
      calls: [
        { serviceId: 'github', toolId: 'issues_list', line: 2 },
        { serviceId: 'slack', toolId: 'post', line: 4 },
      ],
      unknown: [{ line: 6, text: "cyrnel.invoke('audit', which, {})" }],
    });
    expect(found).toEqual(findToolCalls(code));
  });

  it('rejects code that does not parse with invalid_request naming the line', async () => {
    const error = await rejection(env.findToolCalls?.('const a = 1;\nconst b: number = ;\n'));
    expect(isCyrnelError(error) && error.reason).toBe('invalid_request');
    expect((error as Error).message).toMatch(/^The code does not parse at line 2: /);
    const typed = await rejection(env.findToolCalls?.(42 as never));
    expect(isCyrnelError(typed) && typed.reason).toBe('invalid_request');
  });

  it('rejects 100 KiB of nesting off the main thread, then goes on', async () => {
    const depth = 50 * 1024;
    for (const deep of [
      `(${'('.repeat(depth)}1${')'.repeat(depth)})`,
      `x = ${'['.repeat(depth)}${']'.repeat(depth)}`,
    ]) {
      const error = await rejection(env.findToolCalls?.(deep));
      expect(isCyrnelError(error) && error.reason).toBe('invalid_request');
      expect((error as Error).message).toContain('nested too deeply');
    }
    expect(await env.findToolCalls?.("await cyrnel.invoke('a', 'b', {});")).toEqual({
      calls: [{ serviceId: 'a', toolId: 'b', line: 1 }],
      unknown: [],
    });
  });

  it('answers before setup and after teardown, starting its worker again', async () => {
    const fresh = createTypescriptEnvironment();
    expect(await fresh.findToolCalls?.('cyrnel.services.x.tools.y;')).toEqual({
      calls: [{ serviceId: 'x', toolId: 'y', line: 1 }],
      unknown: [],
    });
    await fresh.teardown();
    expect((await fresh.findToolCalls?.('cyrnel.services.x.tools.z;'))?.calls).toHaveLength(1);
    await fresh.teardown();
  });
});
