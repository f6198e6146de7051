import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { NPM_FLAGS, packTarballs, ROOT, shell } from '../support/packed';

const run = promisify(execFile);
const CLI = join(ROOT, 'apps/server/dist/cli.js');

let work: string;
let tarballs: string;
let cyrnel: CyrnelServer | undefined;

/**
 * `cyrnel-server module init <dir> --type <type> --from <tarballs>`, then what its README says:
 * `npm install` (the @cyrnel packages from the tarballs, the rest from the npm registry) and
 * `npm run check` (its JSDoc types against the SDK).
 */
async function scaffold(id: string, type: 'adapter' | 'environment'): Promise<string> {
  const dir = join(work, 'authoring', id);
  const { stdout } = await run(
    process.execPath,
    [CLI, 'module', 'init', dir, '--type', type, '--from', tarballs],
    {
      timeout: 30_000,
    },
  );
  expect(stdout).toContain(`Wrote the ${type} module ${id}`);
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  expect(manifest.devDependencies['@cyrnel/sdk']).toMatch(
    new RegExp(`^file:${tarballs}/cyrnel-sdk-.*\\.tgz$`),
  );
  await shell(`npm install ${NPM_FLAGS}`, dir);
  await shell('npm run check', dir, 120_000);
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-module-'));
  tarballs = join(work, 'packed');
  await packTarballs(tarballs);
  cyrnel = await startCyrnel(join(work, 'data'));
}, 300_000);
afterAll(async () => {
  await cyrnel?.program.stop();
  await rm(work, { recursive: true, force: true });
});

describe('a module from `cyrnel-server module init`', () => {
  it('installs from the packed tarballs and loads as scaffolded: an adapter that passes the adapter contract, dropped into modules/, reloaded, installed and invoked', {
    timeout: 600_000,
  }, async () => {
    const { client } = cyrnel as CyrnelServer;
    const dir = await scaffold('echo-tools', 'adapter');
    // Its own test, with what npm installed: the conformance kit of @cyrnel/testing.
    const contract = await shell('CI=true NO_COLOR=1 npm test', dir, 180_000).catch(
      (error: Error) => `failed: ${error.message}`,
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

  it('loads a scaffolded environment too (inactive beside the active one)', {
    timeout: 400_000,
  }, async () => {
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
