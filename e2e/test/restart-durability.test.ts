import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CyrnelClient } from '@cyrnel/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CyrnelServer, startCyrnel } from '../support/cyrnel-server';
import { type EchoUpstream, startEchoUpstream } from '../support/echo-upstream';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const ENV = { CYRNEL_SHUTDOWN_TIMEOUT_MS: '500' };
const HANGS = `console.log('started'); await new Promise((resolve) => setTimeout(resolve, 60_000));`;

let work: string;
let dataDir: string;
let echo: EchoUpstream;
let cyrnel: CyrnelServer | undefined;
let finishedId: number;

/** Everything that must survive a restart, read through the API. */
async function snapshot(client: CyrnelClient) {
  const tools = [];
  for await (const tool of client.tools.iterate({ serviceId: 'echo' })) tools.push(tool);
  return {
    service: await client.services.get('echo'),
    tools: tools.sort((a, b) => a.id.localeCompare(b.id)),
    config: await client.services.getConfig('echo'),
    secrets: (await client.services.getSecrets('echo')).present.sort(),
    finished: await client.processes.get(finishedId),
    output: await client.processes.output(finishedId),
    stdout: await client.processes.stdout(finishedId),
    calls: await client.processes.calls(finishedId),
  };
}

/** Start a process that never ends and wait until it is really running. */
async function startHanging(client: CyrnelClient): Promise<number> {
  const { id } = await client.processes.create({ code: HANGS, timeoutMs: 120_000 });
  for await (const event of client.processes.events(id)) {
    if (event.type === 'stdout') break;
  }
  expect(await client.processes.get(id)).toMatchObject({ state: 'running' });
  return id;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cyrnel-e2e-restart-'));
  dataDir = join(work, 'data');
  echo = await startEchoUpstream();
  cyrnel = await startCyrnel(dataDir, ENV);
  const { client } = cyrnel;
  await client.services.install({
    id: 'echo',
    adapter: 'openapi',
    definition: await readFile(join(FIXTURES, 'echo.yaml'), 'utf8'),
    config: { baseUrl: echo.url, timeoutMs: 5000 },
    secrets: { bearer: 'tok', queryKey: 'qk', headerKey: 'hk' },
    enabled: true,
  });
  await client.tools.setEnabled('echo', 'status', false);
  const finished = await client.processes.run(
    `const keys = await cyrnel.services.echo.tools.getWithKeys.invoke({ query: { label: 'kept' } });
     console.log('status', keys.status);
     cyrnel.output({ label: keys.body.args.label });`,
    { throwOnFailure: true, ref: 'finished' },
  );
  finishedId = finished.id;
});

afterAll(async () => {
  await cyrnel?.program.stop('SIGKILL');
  await echo?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('restart durability', () => {
  let before: Awaited<ReturnType<typeof snapshot>>;

  it('keeps everything across a SIGTERM mid-run and fails the interrupted run with a clear error', async () => {
    before = await snapshot(cyrnel!.client);
    expect(before.output).toEqual({ label: 'kept' });
    expect(before.tools.find((t) => t.id === 'status')?.enabled).toBe(false);
    const running = await startHanging(cyrnel!.client);

    expect(await cyrnel!.program.stop('SIGTERM')).toBe(0);
    cyrnel = await startCyrnel(dataDir, ENV);

    expect(await snapshot(cyrnel.client)).toEqual(before);
    const interrupted = await cyrnel.client.processes.get(running);
    // An interrupted run is `failed` (never re-run: its tool calls may have happened) with a clear error; the graceful shutdown kills
    // what outlives its grace and records it so (core: SHUTDOWN_ERROR).
    expect(interrupted).toMatchObject({ state: 'idle', exitState: 'failed' });
    expect(interrupted.error).toMatch(/interrupted: the host shut down before the process finished/);
    expect(await cyrnel.client.processes.stdout(running)).toBe('started\n');
  });

  it('keeps everything across a SIGKILL mid-run and fails the interrupted run with a clear error', async () => {
    const { id } = await cyrnel!.client.processes.create({ code: HANGS, timeoutMs: 120_000 });
    // A follower that outlives the crash: it reconnects to the restarted server on the same
    // port and yields only what it has not seen yet.
    const follower = cyrnel!.client.processes.events(id, { retryDelayMs: 200, maxRetries: 10 });
    const seen = [];
    for (;;) {
      const next = await follower.next();
      if (next.done) throw new Error('the event stream ended before the process wrote anything');
      seen.push(next.value);
      if (next.value.type === 'stdout') break;
    }

    expect(await cyrnel!.program.stop('SIGKILL')).toBe('SIGKILL');
    cyrnel = await startCyrnel(dataDir, ENV, cyrnel!.port);

    expect(await snapshot(cyrnel.client)).toEqual(before);
    const interrupted = await cyrnel.client.processes.get(id);
    expect(interrupted).toMatchObject({
      state: 'idle',
      exitState: 'failed',
      errorReason: 'process_interrupted',
    });
    expect(interrupted.error).toMatch(/interrupted/);
    for await (const event of follower) seen.push(event);
    expect(seen.filter((e) => e.type === 'stdout')).toEqual([
      { type: 'stdout', data: { text: 'started\n' } },
    ]);
    expect(seen.at(-1)).toEqual({
      type: 'exit',
      data: { exitState: 'failed', error: interrupted.error, errorReason: 'process_interrupted' },
    });
  });

  it('still runs code that calls the restored service with its restored secrets', async () => {
    const result = await cyrnel!.client.processes.run(
      `const keys = await cyrnel.services.echo.tools.getWithKeys.invoke({});
       cyrnel.output({ key: keys.body.args.api_key, status: keys.status });
       try { await cyrnel.services.echo.tools.status.invoke({ path: { code: 200 } }); }
       catch (error) { cyrnel.output({ disabled: error.status }); }`,
      { throwOnFailure: true },
    );
    expect(result.output).toEqual({ key: 'qk', status: 200, disabled: 409 });
  });
});
