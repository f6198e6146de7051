import { isCyrnelError } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { findToolCalls } from './find-tool-calls';

const call = (serviceId: string, toolId: string, line: number) => ({ serviceId, toolId, line });
const lines = (...code: string[]) => code.join('\n');

describe('findToolCalls', () => {
  it('finds the proxy form with dots, brackets and templates without substitutions', () => {
    const code = lines(
      'await cyrnel.services.github.tools.issues_list.invoke({});',
      'await cyrnel.services[\'git-hub\'].tools["list"].invoke({});',
      'await cyrnel.services[`jira`].tools[`get`].invoke({});',
      'await cyrnel.services?.a?.tools?.b?.invoke({});',
      'await cyrnel.services.n.tools[42].invoke({});',
    );
    expect(findToolCalls(code)).toEqual({
      calls: [
        call('github', 'issues_list', 1),
        call('git-hub', 'list', 2),
        call('jira', 'get', 3),
        call('a', 'b', 4),
        call('n', '42', 5),
      ],
      unknown: [],
    });
  });

  it('finds cyrnel.invoke with literal ids and lists the others as unknown', () => {
    const code = lines(
      "await cyrnel.invoke('slack', 'post', { text: 'hi' });",
      'await cyrnel.invoke(`slack`, `read`);',
      'const s = pick();',
      "await cyrnel.invoke(s, 'post', {});",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template with a substitution, in the program
      "await cyrnel.invoke('slack', `${s}`, {});",
      "await cyrnel.invoke(...['slack', 'post'], {});",
      "await cyrnel.invoke.call(null, 'slack', 'post', {});",
      'await cyrnel.invoke(1, 2, {});',
    );
    expect(findToolCalls(code)).toEqual({
      calls: [call('slack', 'post', 1), call('slack', 'read', 2)],
      unknown: [
        { line: 4, text: "cyrnel.invoke(s, 'post', {})" },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the program's text
        { line: 5, text: "cyrnel.invoke('slack', `${s}`, {})" },
        { line: 6, text: "cyrnel.invoke(...['slack', 'post'], {})" },
        { line: 7, text: "cyrnel.invoke.call(null, 'slack', 'post', {})" },
        { line: 8, text: 'cyrnel.invoke(1, 2, {})' },
      ],
    });
  });

  it('counts a tool named without being invoked as a call site', () => {
    const code = lines(
      'const run = cyrnel.services.x.tools.y.invoke;',
      'const tool = cyrnel.services.x.tools.z;',
      'await Promise.all([cyrnel.services.x.tools.w].map((t) => t.invoke({})));',
    );
    expect(findToolCalls(code)).toEqual({
      calls: [call('x', 'y', 1), call('x', 'z', 2), call('x', 'w', 3)],
      unknown: [],
    });
  });

  it('lists computed services and tools as unknown with the whole chain', () => {
    const code = lines(
      "const names = ['a', 'b'];",
      'for (const name of names) await cyrnel.services[name].tools.list.invoke({});',
      "await cyrnel.services.a.tools[names[0] + 'x'].invoke({});",
      'await cyrnel[names[1]].a.tools.b.invoke({});',
    );
    expect(findToolCalls(code)).toEqual({
      calls: [],
      unknown: [
        { line: 2, text: 'cyrnel.services[name].tools.list.invoke({})' },
        { line: 3, text: "cyrnel.services.a.tools[names[0] + 'x'].invoke({})" },
        { line: 4, text: 'cyrnel[names[1]].a.tools.b.invoke({})' },
      ],
    });
  });

  it('follows constants and destructuring, whatever their names', () => {
    const code = lines(
      'const c = cyrnel;',
      'const gh = c.services.github;',
      'const { tools } = gh;',
      'await tools.issues_list.invoke({});',
      "const t = cyrnel.services['jira'].tools;",
      'await t.get.invoke({}); await t["put"].invoke({});',
      'const { services: { s3: { tools: { get_object, "put-object": put } } } } = cyrnel;',
      'const { invoke } = cyrnel;',
      "await invoke('mail', 'send', {});",
      'const { x: { tools: other = {} } } = cyrnel.services;',
      'other.y;',
    );
    expect(findToolCalls(code)).toEqual({
      calls: [
        call('github', 'issues_list', 4),
        call('jira', 'get', 6),
        call('jira', 'put', 6),
        call('s3', 'get_object', 7),
        call('s3', 'put-object', 7),
        call('mail', 'send', 9),
        call('x', 'y', 11),
      ],
      unknown: [],
    });
  });

  it('lists what a constant holds as unknown when it is used in a way the text cannot follow', () => {
    const code = lines(
      'const t = cyrnel.services.x.tools;',
      'const name = process();',
      'await t[name].invoke({});',
      'const { tools, ...rest } = cyrnel.services.y;',
      'const [first] = cyrnel.services.z.tools;',
    );
    expect(findToolCalls(code).unknown).toEqual([
      { line: 3, text: 't[name].invoke({})' },
      { line: 4, text: '{ tools, ...rest } = cyrnel.services.y' },
      { line: 5, text: '[first] = cyrnel.services.z.tools' },
    ]);
  });

  it('lists as unknown the values a let, an assignment, an argument or a return carries', () => {
    const code = lines(
      'let svc = cyrnel.services.x;',
      'let inv; inv = cyrnel.invoke;',
      'helper(cyrnel.services);',
      'const get = () => cyrnel;',
      'const pick = (ok) => (ok ? cyrnel.services.a.tools : cyrnel.services.b.tools);',
    );
    const found = findToolCalls(code);
    expect(found.calls).toEqual([]);
    expect(found.unknown).toEqual([
      { line: 1, text: 'svc = cyrnel.services.x' },
      { line: 2, text: 'inv = cyrnel.invoke' },
      { line: 3, text: 'helper(cyrnel.services)' },
      { line: 4, text: 'cyrnel' },
      { line: 5, text: 'cyrnel.services.a.tools' },
      { line: 5, text: 'cyrnel.services.b.tools' },
    ]);
  });

  it('keeps a name that shadows cyrnel or a followed constant apart from it', () => {
    const code = lines(
      'const t = cyrnel.services.x.tools;',
      'function f(t) { return t.notATool; }',
      'function g(cyrnel) { return cyrnel.services.fake.tools.nope; }',
      '{ const t = { a: 1 }; t.a; }',
      't.real;',
    );
    expect(findToolCalls(code)).toEqual({ calls: [call('x', 'real', 5)], unknown: [] });
  });

  it('ignores what cannot reach a tool', () => {
    const code = lines(
      "cyrnel.output({ done: true }); cyrnel.console.log('x');",
      "await cyrnel.discover.tools({ query: 'issues' });",
      'if (typeof cyrnel === "object") cyrnel.services.x.name;',
      'globalThis.JSON.stringify({}); const n = cyrnel.services.x.tools.y.name;',
    );
    expect(findToolCalls(code)).toEqual({ calls: [call('x', 'y', 4)], unknown: [] });
  });

  it('follows globalThis and lists code built at run time as unknown', () => {
    const code = lines(
      'await globalThis.cyrnel.services.x.tools.y.invoke({});',
      "await globalThis['cyrnel'].invoke('a', 'b', {});",
      'const g = globalThis;',
      'g[key()].services.x.tools.z;',
      "eval('cyrnel.invoke(1)');",
      "new Function('return cyrnel')();",
      "cyrnel.constructor.constructor('return 1')();",
      'const type = value.constructor.name;',
      'if (typeof eval === "function" && f instanceof Function) f();',
    );
    const found = findToolCalls(code);
    expect(found.calls).toEqual([call('x', 'y', 1), call('a', 'b', 2)]);
    expect(found.unknown).toEqual([
      { line: 4, text: 'g[key()].services.x.tools.z' },
      { line: 5, text: "eval('cyrnel.invoke(1)')" },
      { line: 6, text: "new Function('return cyrnel')" },
      { line: 7, text: "cyrnel.constructor.constructor('return 1')()" },
    ]);
  });

  it('keeps the lines of the submitted TypeScript across stripped types, enums and classes', () => {
    const code = lines(
      'interface Issue {',
      '  id: number;',
      '}',
      'enum Mode {',
      '  A,',
      '  B,',
      '}',
      'class Client<T extends object> {',
      '  constructor(private readonly name: string) {}',
      '  list(): Promise<Issue[]> {',
      '    return cyrnel.services.github.tools.issues_list.invoke({} as Record<string, never>) as any;',
      '  }',
      '}',
      'const issues = await cyrnel.invoke(',
      "  'github',",
      "  'issues_get',",
      '  { id: 1 } satisfies object,',
      ');',
    );
    expect(findToolCalls(code)).toEqual({
      calls: [call('github', 'issues_list', 11), call('github', 'issues_get', 14)],
      unknown: [],
    });
  });

  it('cuts the text of an unknown call site at 200 characters', () => {
    const code = `await cyrnel.invoke(name, 'x', { data: '${'a'.repeat(400)}' });`;
    const [entry] = findToolCalls(code).unknown;
    expect(entry?.text).toHaveLength(200);
    expect(entry?.text.startsWith("cyrnel.invoke(name, 'x', { data: 'aaa")).toBe(true);
  });

  it('rejects code that does not parse with invalid_request naming the line', () => {
    for (const [code, line] of [
      ['const a = 1;\nconst b = ;', 2],
      ['const a: number = 1;\n\nfoo(', 3],
      ["import { x } from 'y';\nx();", 1],
    ] as const) {
      let thrown: unknown;
      try {
        findToolCalls(code);
      } catch (error) {
        thrown = error;
      }
      expect(isCyrnelError(thrown) && thrown.reason).toBe('invalid_request');
      expect((thrown as Error).message).toContain(`line ${line}`);
    }
  });

  it('rejects code nested deeper than the parser goes with invalid_request', () => {
    const deep = `const x = ${'['.repeat(50_000)}${']'.repeat(50_000)};`;
    expect(() => findToolCalls(deep)).toThrow('nested too deeply');
  });

  it('finds nothing in a program without tool calls', () => {
    expect(findToolCalls('console.log(1 + 1);')).toEqual({ calls: [], unknown: [] });
  });
});
