// Compares sucrase, esbuild and typescript.transpileModule on representative snippets:
// speed (mean ms per call after warm-up) and correctness (the output runs and gives the
// expected value; a syntax error names its line). Run: node bench/transpilers.mjs
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { transformSync } from 'esbuild';
import { transform } from 'sucrase';

const require = createRequire(import.meta.url);
const ts = require(require.resolve('typescript', { paths: [process.cwd(), `${process.cwd()}/../..`] }));

const snippets = {
  small: {
    code: `interface P { a: number; b?: string }
const p: P = { a: 1 };
const f = <T,>(x: T): T => x;
return f(p.a) + (p.b?.length ?? 0);`,
    expect: 1,
  },
  agent: {
    code: `type User = { id: number; email: string };
enum Role { Admin = 'admin', User = 'user' }
class Cache<K, V> { private store = new Map<K, V>(); constructor(private readonly limit: number) {}
  get(k: K): V | undefined { return this.store.get(k); }
  set(k: K, v: V) { if (this.store.size < this.limit) this.store.set(k, v); return this; } }
const users: User[] = [{ id: 1, email: 'a@x' }, { id: 2, email: 'b@x' }];
const cache = new Cache<number, User>(10);
for (const u of users) cache.set(u.id, u);
const first = cache.get(1)!;
const n = await Promise.resolve(users.length as number);
const cfg = { role: Role.Admin } satisfies { role: Role };
return first.email + n + cfg.role;`,
    expect: 'a@x2admin',
  },
};
snippets.large = {
  code: `let total = 0;\n${'{ const xs: Array<{ v: number }> = [{ v: 1 }, { v: 2 }]; total += xs.map((x): number => x.v).reduce((a: number, b: number) => a + b, 0); }\n'.repeat(800)}return total;`,
  expect: 2400,
};
const broken = 'const ok = 1;\nconst bad = ;\n';

const transpilers = {
  sucrase: (code) => transform(code, { transforms: ['typescript'], disableESTransforms: true }).code,
  esbuild: (code) => transformSync(code, { loader: 'ts', target: 'es2023' }).code,
  'typescript.transpileModule': (code) =>
    ts.transpileModule(code, {
      compilerOptions: { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.ESNext },
      reportDiagnostics: true,
    }).outputText,
};

async function runs(js) {
  return vm.runInNewContext(`(async function () {\n${js}\n})()`, {});
}

const rows = [];
for (const [name, fn] of Object.entries(transpilers)) {
  const row = { transpiler: name };
  for (const [label, { code, expect }] of Object.entries(snippets)) {
    // `return` at top level is not valid TS for every transpiler: wrap like the runtime does.
    const source = `async function __main() {\n${code}\n}`;
    const strip = (js) => `${js}\nreturn __main();`;
    for (let i = 0; i < 20; i++) fn(source);
    const n = label === 'large' ? 50 : 500;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(source);
    row[`${label} ms`] = (Number(process.hrtime.bigint() - start) / 1e6 / n).toFixed(3);
    let ok;
    try {
      ok = (await runs(strip(fn(source)))) === expect;
    } catch {
      ok = false;
    }
    row[`${label} ok`] = ok;
  }
  let message = '(no error)';
  try {
    const out = fn(broken);
    if (name === 'typescript.transpileModule') message = '(emits code, no error thrown)';
    else message = `(no error) ${out.length}`;
  } catch (error) {
    message = String(error.message).split('\n')[0];
  }
  row['syntax error'] = message;
  rows.push(row);
}
console.table(rows);
