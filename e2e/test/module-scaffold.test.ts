import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'apps/server/dist/cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let work: string;
let cyrnel: CyrnelServer | undefined;

/** `cyrnel-server module init <dir> --type <type>`, then its JSDoc types checked against the SDK. */
async function scaffold(id: string, type: 'adapter' | 'environment'): Promise<string> {
  const dir = join(work, 'authoring', id);
  const { stdout } = await run(process.execPath, [CLI, 'module', 'init', dir, '--type', type], {
    timeout: 30_000,
  });
  expect(stdout).toContain(`Wrote the ${type} module ${id}`);
  // What `npm install` in the module folder would give: the SDK's types, the kits and vitest.
  await mkdir(join(dir, 'node_modules', '@cyrnel'), { recursive: true });
  await symlink(join(ROOT, 'packages/sdk'), join(dir, 'node_modules', '@cyrnel', 'sdk'));
  await symlink(join(ROOT, 'packages/testing'), join(dir, 'node_modules', '@cyrnel', 'testing'));
  await symlink(join(ROOT, 'node_modules/vitest'), join(dir, 'node_modules', 'vitest'));
  const checked = await run(process.execPath, [TSC, '-p', dir], { timeout: 120_000 }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  expect(checked).toBe('');
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-module-'));
  cyrnel = await startCyrnel(join(work, 'data'));
});
afterAll(async () => {
  await cyrnel?.program.stop();
  await rm(work, { recursive: true, force: true });
});

describe('a module from `cyrnel-server module init`', () => {
  it('loads as scaffolded: an adapter that passes the adapter contract, dropped into modules/, reloaded, installed and invoked', async () => {
    const { client } = cyrnel as CyrnelServer;
    const dir = await scaffold('echo-tools', 'adapter');
    // Its own test: the conformance kit of @cyrnel/testing (`npm test` in the module folder).
    const contract = await run(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run'], {
      cwd: dir,
      timeout: 120_000,
      env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string; stderr?: string }) => `failed: ${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(contract).toMatch(/Tests\s+\d+ passed/);
    expect(contract).not.toMatch(/failed/);
    await cp(dir, join(work, 'data', 'modules', 'echo-tools'), { recursive: true, verbatimSymlinks: true });
    const reload = await client.modules.reload();
    expect(reload.skipped).toEqual([]);
    expect(reload.loaded).toContain('echo-tools');
    expect(await client.modules.get('echo-tools')).toMatchObject({
      type: 'adapter',
      enabled: true,
      status: 'active',
    });
    await client.services.install({
      id: 'demo',
      adapter: 'echo-tools',
      definition: '["ping"]',
      enabled: true,
    });
    const result = await client.processes.run(
      "cyrnel.output(await cyrnel.services.demo.tools.ping.invoke({ hello: 'world' }));",
      { throwOnFailure: true },
    );
    expect(result.output).toEqual({ tool: 'ping', parameters: { hello: 'world' } });
  });

  it('loads a scaffolded environment too (inactive beside the active one)', async () => {
    const { client } = cyrnel as CyrnelServer;
    const dir = await scaffold('echo-env', 'environment');
    await cp(dir, join(work, 'data', 'modules', 'echo-env'), { recursive: true, verbatimSymlinks: true });
    const reload = await client.modules.reload();
    expect(reload.skipped).toEqual([]);
    expect(reload.loaded).toContain('echo-env');
    expect(await client.modules.get('echo-env')).toMatchObject({ type: 'environment', isBuiltin: false });
  });

  it('refuses a bad invocation with the usage', async () => {
    const refused = await run(process.execPath, [CLI, 'module', 'init', join(work, 'x')], {
      timeout: 30_000,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('--type adapter|environment') });
  });
});
