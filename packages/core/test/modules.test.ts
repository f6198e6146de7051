import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KILLED_ERROR } from '../src/index';
import { gatewayOf } from './support/gateway';
import { createHarness, type Harness } from './support/harness';
import { adapterSource, manifest, moduleCalls, moduleDir } from './support/module-dir';
import { createProbe, createTestAdapter } from './support/test-adapter';
import { createEnvironmentProbe, createTestEnvironment } from './support/test-environment';

let harness: Harness | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
  moduleCalls().length = 0;
});

/** A data directory whose modules/ folder is filled before the host starts. */
function prepare() {
  dataDir = mkdtempSync(join(tmpdir(), 'cyrnel-modules-'));
  return moduleDir(dataDir);
}

async function start(options: Parameters<typeof createHarness>[0] = {}) {
  harness = await createHarness({
    builtins: [createTestAdapter('test', createProbe())],
    dataDir,
    ...options,
  });
  return harness.host;
}

describe('module registry', () => {
  it('loads custom modules and skips bad ones with the reason, ignoring directories without module.json', async () => {
    const modules = prepare();
    modules.write('good', manifest('custom'), { 'index.mjs': adapterSource('custom') });
    modules.write('bad-id', manifest('1bad'), { 'index.mjs': adapterSource('x') });
    modules.write('bad-json', '{ nope', {});
    modules.write('escape', manifest('escape', { main: '../good/index.mjs' }), {});
    modules.write('engines', manifest('future', { engines: { cyrnel: '>=2.0.0 <3' } }), {
      'index.mjs': adapterSource('f'),
    });
    modules.write('engines-ok', manifest('current', { engines: { cyrnel: '^0.1.0 || ^1' } }), {
      'index.mjs': adapterSource('current'),
    });
    modules.write('dup', manifest('test'), { 'index.mjs': adapterSource('test') });
    modules.write('no-export', manifest('noexport'), { 'index.mjs': 'export const x = 1;' });
    // What tsc makes of `export default {...}` in an `npm init -y` project ("type": "commonjs")
    // loads; one exporting the definition under another name is told apart from an ES module.
    modules.write('commonjs-named', manifest('commonjsnamed', { main: 'index.js' }), {
      'package.json': JSON.stringify({ name: 'commonjs-named' }),
      'index.js': `exports.adapter = ${adapterSourceObject()};`,
    });
    modules.write('commonjs', manifest('commonjs', { main: 'index.js' }), {
      'package.json': JSON.stringify({ name: 'commonjs', type: 'commonjs' }),
      'index.js': `"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nexports.default = ${adapterSourceObject()};`,
    });
    modules.write('throws', manifest('throws'), { 'index.mjs': 'throw new Error("boom at import");' });
    modules.write('empty', undefined, { 'README.txt': 'not a module' });
    const host = await start();
    const result = await host.modules.reload();
    expect(result.loaded).toEqual(['commonjs', 'current', 'custom']);
    const reasons = Object.fromEntries(result.skipped.map((entry) => [entry.dir, entry.error]));
    expect(Object.keys(reasons).sort()).toEqual([
      'bad-id',
      'bad-json',
      'commonjs-named',
      'dup',
      'engines',
      'escape',
      'no-export',
      'throws',
    ]);
    expect(reasons.escape).toContain('inside the module directory');
    expect(reasons.engines).toContain('requires cyrnel >=2.0.0 <3');
    expect(reasons.dup).toContain('already registered');
    expect(reasons.throws).toContain('boom at import');
    expect(reasons['commonjs-named']).toContain(
      'main index.js is a CommonJS file (its package.json says "type": "commonjs") that exports no',
    );
    expect(reasons['commonjs-named']).toContain('"type": "module" in its package.json');
    expect(reasons['no-export']).toContain('main must export { configSchema, secretsSchema, instantiate() }');
    const custom = await host.modules.get('custom');
    expect(custom).toMatchObject({ isBuiltin: false, enabled: true, status: 'active', type: 'adapter' });
    expect(custom.configSchema).toMatchObject({ properties: { greeting: { default: 'hi' } } });
    expect((await host.modules.list({ isBuiltin: true })).items.map((m) => m.id)).toEqual(['test']);
    expect(moduleCalls()).toContainEqual(['setup', 'custom', 'v1', { greeting: 'hi' }, []]);
  });

  it('marks removed modules missing (503 for their tools, 409 on enable) and restores them', async () => {
    const modules = prepare();
    modules.write('good', manifest('custom'), { 'index.mjs': adapterSource('custom') });
    const host = await start({ builtins: [createTestEnvironment('env', createEnvironmentProbe())] });
    await host.services.install({ id: 'svc', adapter: 'custom', definition: 'anything', enabled: true });
    const { tools } = gatewayOf(host);
    expect(await tools.invoke({ serviceId: 'svc', toolId: 'hello', parameters: {} })).toEqual({
      hello: 'v1',
    });
    modules.remove('good');
    expect(await host.modules.reload()).toEqual({ loaded: [], skipped: [] });
    expect(await host.modules.get('custom')).toMatchObject({ status: 'missing', enabled: true });
    expect(moduleCalls()).toContainEqual(['teardown', 'custom', 'v1']);
    await expect(tools.invoke({ serviceId: 'svc', toolId: 'hello', parameters: {} })).rejects.toMatchObject({
      status: 503,
    });
    await expect(host.modules.setEnabled('custom', true)).rejects.toMatchObject({ code: 'conflict' });
    await expect(
      host.services.install({ id: 'more', adapter: 'custom', definition: 'x' }),
    ).rejects.toMatchObject({
      status: 503,
    });
    await expect(
      host.services.install({ id: 'more', adapter: 'envless', definition: 'x' }),
    ).rejects.toMatchObject({
      status: 400,
    });
    expect((await host.tools.get('svc', 'hello')).effectivelyEnabled).toBe(false);
    moduleCalls().length = 0;
    modules.write('good', manifest('custom'), { 'index.mjs': adapterSource('custom', 'v2') });
    await host.modules.reload();
    expect(await host.modules.get('custom')).toMatchObject({ status: 'active', enabled: true, error: null });
    expect(moduleCalls()).toEqual([
      ['setup', 'custom', 'v2', { greeting: 'hi' }, []],
      ['hydrate', 'svc'],
    ]);
    expect(await tools.invoke({ serviceId: 'svc', toolId: 'hello', parameters: {} })).toEqual({
      hello: 'v2',
    });
  });

  it('keeps a disabled flag across disappearance and re-activates changed code on reload', async () => {
    const modules = prepare();
    modules.write('good', manifest('custom'), { 'index.mjs': adapterSource('custom') });
    const host = await start();
    await host.modules.setEnabled('custom', false);
    modules.remove('good');
    await host.modules.reload();
    modules.write('good', manifest('custom'), { 'index.mjs': adapterSource('custom') });
    await host.modules.reload();
    expect(await host.modules.get('custom')).toMatchObject({ enabled: false, status: 'inactive' });
    await host.modules.setEnabled('custom', true);
    moduleCalls().length = 0;
    await host.modules.reload();
    expect(moduleCalls()).toEqual([]);
    modules.write('good', manifest('custom', { version: '1.1.0' }), {
      'index.mjs': adapterSource('custom', 'v3'),
    });
    await host.modules.reload();
    expect(moduleCalls()).toEqual([
      ['teardown', 'custom', 'v1'],
      ['setup', 'custom', 'v3', { greeting: 'hi' }, []],
    ]);
    expect((await host.modules.get('custom')).version).toBe('1.1.0');
  });

  it('validates module config and secrets and re-activates the module on change', async () => {
    const modules = prepare();
    modules.write('good', manifest('custom'), { 'index.mjs': adapterSource('custom') });
    const host = await start();
    moduleCalls().length = 0;
    expect(
      await host.modules.patchConfig('custom', [{ op: 'replace', path: '/greeting', value: 'hello' }]),
    ).toEqual({
      greeting: 'hello',
    });
    await host.modules.patchSecrets('custom', [{ op: 'add', path: '/apiKey', value: 'k-123' }]);
    expect(moduleCalls()).toEqual([
      ['teardown', 'custom', 'v1'],
      ['setup', 'custom', 'v1', { greeting: 'hello' }, []],
      ['teardown', 'custom', 'v1'],
      ['setup', 'custom', 'v1', { greeting: 'hello' }, ['apiKey']],
    ]);
    expect(await host.modules.getSecretsPresent('custom')).toEqual(['/apiKey']);
    expect(await host.modules.getConfig('custom')).toEqual({ greeting: 'hello' });
    await expect(
      host.modules.patchConfig('custom', [{ op: 'add', path: '/unknown', value: 1 }]),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(host.modules.patchConfig('custom', { op: 'add' } as never)).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(host.modules.get('nope')).rejects.toMatchObject({ code: 'not_found' });
    await expect(host.modules.get('bad id!')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(host.modules.setEnabled('custom', 'no' as never)).rejects.toMatchObject({
      details: [{ path: 'enabled' }],
    });
  });

  it('rolls back enabling an adapter whose setup fails (502)', async () => {
    const probe = createProbe();
    const host = await start({ builtins: [createTestAdapter('flaky', probe)] });
    await host.modules.setEnabled('flaky', false);
    probe.failSetup = 'cannot reach license server';
    await expect(host.modules.setEnabled('flaky', true)).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('cannot reach license server'),
    });
    expect(await host.modules.get('flaky')).toMatchObject({ enabled: false, status: 'inactive' });
  });

  it('lists an adapter whose setup fails at start as failed, with 503 for its tools', async () => {
    const probe = createProbe();
    const environment = createTestEnvironment('env', createEnvironmentProbe());
    harness = await createHarness({ builtins: [createTestAdapter('flaky', probe), environment] });
    await harness.host.services.install({
      id: 'svc',
      adapter: 'flaky',
      definition: '{"tools":["ping"]}',
      enabled: true,
    });
    probe.failSetup = 'license expired';
    await harness.restart();
    const { host } = harness;
    expect(await host.modules.get('flaky')).toMatchObject({
      enabled: true,
      status: 'failed',
      error: 'license expired',
    });
    const { tools } = gatewayOf(host);
    await expect(tools.invoke({ serviceId: 'svc', toolId: 'ping', parameters: {} })).rejects.toMatchObject({
      status: 503,
    });
    await expect(
      host.services.install({ id: 'other', adapter: 'flaky', definition: '{"tools":[]}' }),
    ).rejects.toMatchObject({
      status: 503,
    });
    probe.failSetup = undefined;
    probe.calls.length = 0;
    expect(await host.modules.setEnabled('flaky', true)).toMatchObject({ status: 'active', error: null });
    expect(probe.calls).toEqual(['setup', 'hydrate:svc']);
  });

  it('fails an adapter whose setup hangs past the deadline instead of hanging the host, and tears it down once it ends', async () => {
    const probe = createProbe();
    let release!: () => void;
    probe.setupHold = new Promise((resolve) => {
      release = resolve;
    });
    harness = await createHarness({
      builtins: [createTestAdapter('stuck', probe)],
      limits: { moduleSetupTimeoutMs: 50 },
    });
    const { host } = harness;
    expect(await host.modules.get('stuck')).toMatchObject({
      status: 'failed',
      error: 'module stuck did not finish setup within 50 ms',
    });
    await expect(
      host.services.install({ id: 'svc', adapter: 'stuck', definition: '{"tools":[]}' }),
    ).rejects.toMatchObject({ status: 503 });
    release();
    await vi.waitFor(() => expect(probe.calls).toEqual(['setup', 'teardown']));
    probe.setupHold = undefined;
    expect(await host.modules.setEnabled('stuck', true)).toMatchObject({ status: 'active', error: null });
  });

  it('filters and pages the module list', async () => {
    const host = await start({
      builtins: [
        createTestAdapter('a1', createProbe()),
        createTestAdapter('a2', createProbe()),
        createTestEnvironment('e1', createEnvironmentProbe()),
      ],
    });
    const first = await host.modules.list({ limit: 2 });
    expect(first.items.map((m) => m.id)).toEqual(['a1', 'a2']);
    const second = await host.modules.list({ limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.items.map((m) => m.id)).toEqual(['e1']);
    expect((await host.modules.list({ type: 'environment' })).items.map((m) => m.id)).toEqual(['e1']);
    expect((await host.modules.list({ query: 'A2' })).items.map((m) => m.id)).toEqual(['a2']);
    await expect(host.modules.list({ type: 'other' as never })).rejects.toMatchObject({
      details: [{ path: 'type' }],
    });
  });
});

describe('environments', () => {
  it('keeps exactly one active; a replaced one drains until its last execution ends', async () => {
    const first = createEnvironmentProbe();
    const second = createEnvironmentProbe();
    const host = await start({
      builtins: [createTestEnvironment('envA', first), createTestEnvironment('envB', second)],
    });
    expect(
      (await host.modules.list({ type: 'environment' })).items.map((m) => [m.id, m.enabled, m.status]),
    ).toEqual([
      ['envA', true, 'active'],
      ['envB', false, 'inactive'],
    ]);
    first.hold = true;
    const slow = await host.processes.create({ code: 'slow' });
    await vi.waitFor(() => expect(first.release.has(slow.id)).toBe(true));
    await host.modules.setEnabled('envB', true);
    expect(
      (await host.modules.list({ type: 'environment' })).items.map((m) => [m.id, m.enabled, m.status]),
    ).toEqual([
      ['envA', false, 'draining'],
      ['envB', true, 'active'],
    ]);
    const fast = await host.processes.create({ code: 'fast' });
    expect((await host.processes.wait(fast.id)).output).toEqual({ ranOn: 'envB' });
    expect(first.calls).not.toContain('teardown');
    first.release.get(slow.id)?.();
    expect((await host.processes.wait(slow.id)).output).toEqual({ ranOn: 'envA' });
    await vi.waitFor(() => expect(first.calls).toContain('teardown'));
    expect((await host.modules.get('envA')).status).toBe('inactive');
    await host.modules.setEnabled('envB', false);
    await vi.waitFor(() => expect(second.calls).toContain('teardown'));
    await expect(host.environment.docs()).rejects.toMatchObject({ status: 503 });
  });

  it('kills an execution of a draining environment, which is torn down once it ends', async () => {
    const first = createEnvironmentProbe();
    const second = createEnvironmentProbe();
    const host = await start({
      builtins: [createTestEnvironment('envA', first), createTestEnvironment('envB', second)],
    });
    first.hold = true;
    const slow = await host.processes.create({ code: 'slow', timeoutMs: null });
    await vi.waitFor(() => expect(first.release.has(slow.id)).toBe(true));
    await host.modules.setEnabled('envB', true);
    expect((await host.modules.get('envA')).status).toBe('draining');
    expect(await host.processes.kill(slow.id)).toMatchObject({ state: 'terminating' });
    expect(await host.processes.wait(slow.id)).toMatchObject({
      state: 'idle',
      exitState: 'canceled',
      error: KILLED_ERROR,
    });
    await vi.waitFor(() => expect(first.calls).toContain('teardown'));
    expect((await host.modules.get('envA')).status).toBe('inactive');
    expect(second.calls).not.toContain(`execute:${slow.id}`);
    const next = await host.processes.create({ code: 'next' });
    expect((await host.processes.wait(next.id)).output).toEqual({ ranOn: 'envB' });
  });

  it('inserts a newly found custom environment disabled while another one is active', async () => {
    const modules = prepare();
    modules.write('env', manifest('customEnv', { type: 'environment' }), {
      'index.mjs': `export const configSchema = {}; export const secretsSchema = {};
export function instantiate() { return { async setup() {}, async teardown() {}, async execute() { return 'success'; },
  async kill() {}, async generateDocs() { return 'custom'; }, async generateToolDocs() { return ''; } }; }`,
    });
    const host = await start({ builtins: [createTestEnvironment('builtinEnv', createEnvironmentProbe())] });
    expect(await host.modules.get('customEnv')).toMatchObject({
      enabled: false,
      status: 'inactive',
      isBuiltin: false,
    });
    await host.modules.setEnabled('customEnv', true);
    expect(await host.environment.docs()).toBe('custom');
    expect((await host.modules.get('builtinEnv')).enabled).toBe(false);
  });
});

/** A module definition as an object literal (what a CommonJS build assigns to `exports.default`). */
function adapterSourceObject(): string {
  return '{ configSchema: {}, secretsSchema: {}, instantiate() { return {}; } }';
}
