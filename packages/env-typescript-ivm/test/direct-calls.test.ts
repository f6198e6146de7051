import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EgressChannel, EnvironmentBindings, EnvironmentModule } from '@cyrnel/sdk';
import { createEgressFrameReader, type EgressRequest, encodeEgressFrame } from '@cyrnel/sdk/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypescriptEnvironment } from '../src';
import { createRecordingBindings, createRecordingLogger, waitFor } from './recording-bindings';

/**
 * A gateway worker as the host runs it, reduced to what the environment relies on, speaking the
 * real frames over a real Unix socket: it answers `fast.*` with JSON text (a coded error for
 * `fast.fail`), holds `slow.*` until the grant is revoked, sends `local.*` to the host as a tool it
 * does not make until the catalog changes (`unprepared`), and everything else to the host.
 * Calls for executions not granted to the connection's token are refused.
 */
function startFakeGateway(path: string) {
  const grants = new Map<string, Set<number>>();
  const tokens: string[] = [];
  const requests: { token: string; request: EgressRequest }[] = [];
  const held = new Map<string, (() => void)[]>();
  const server: Server = createServer((socket: Socket) => {
    let token: string | undefined;
    socket.on(
      'data',
      createEgressFrameReader(
        1 << 20,
        (header) => {
          if (token === undefined) {
            token = (header as { token: string }).token;
            return;
          }
          const request = header as EgressRequest;
          requests.push({ token, request });
          const answer = (frame: object, body?: string) =>
            socket.write(encodeEgressFrame({ id: request.id, ...frame }, body));
          if (!grants.get(token)?.has(request.eid))
            return answer({
              ok: false,
              error: { status: 401, code: 'unauthorized', reason: 'unauthorized', message: 'not granted' },
            });
          if (request.serviceId === 'fast' && request.toolId === 'fail')
            return answer({
              ok: false,
              error: {
                status: 502,
                code: 'upstream_error',
                reason: 'upstream_failed',
                message: 'upstream said no',
              },
            });
          if (request.serviceId === 'fast')
            return answer({ ok: true }, JSON.stringify({ echoed: request.parameters }));
          if (request.serviceId === 'slow') {
            const key = `${token}:${request.eid}`;
            held.set(key, [
              ...(held.get(key) ?? []),
              () =>
                answer({
                  ok: false,
                  error: { status: 409, code: 'conflict', reason: 'process_killed', message: 'stopped' },
                }),
            ]);
            return;
          }
          answer(request.serviceId === 'local' ? { host: true, unprepared: true } : { host: true });
        },
        () => socket.destroy(),
      ),
    );
  });
  const channel = (): EgressChannel => {
    const token = `token-${tokens.length}-${Math.random().toString(36).slice(2)}`;
    tokens.push(token);
    grants.set(token, new Set());
    return {
      endpoints: [path],
      token,
      async grant(eid) {
        grants.get(token)?.add(eid);
      },
      revoke(eid) {
        grants.get(token)?.delete(eid);
        for (const stop of held.get(`${token}:${eid}`) ?? []) stop();
        held.delete(`${token}:${eid}`);
      },
      close() {
        grants.delete(token);
      },
    };
  };
  return {
    channel,
    tokens,
    grants,
    requests,
    held,
    listen: () => new Promise<void>((resolve) => server.listen(path, resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('tool calls of the typescript-ivm environment through the egress gateway', () => {
  let dir: string;
  let env: EnvironmentModule;
  let recording: ReturnType<typeof createRecordingBindings>;
  let gateway: ReturnType<typeof startFakeGateway>;
  let next = 1;

  const run = async (code: string, timeoutMs = 20_000) => {
    const eid = next++;
    const exit = await env.execute({ eid, code, options: { timeoutMs }, envConfig: {} });
    return { exit, record: recording.of(eid), eid };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cyrnel-egress-env-'));
    gateway = startFakeGateway(join(dir, 'w0.sock'));
    await gateway.listen();
    recording = createRecordingBindings({
      'host.echo': (parameters) => ({ viaHost: parameters }),
      'local.echo': (parameters) => ({ local: parameters }),
      'local.other': () => 'other',
    });
    const bindings: EnvironmentBindings = { ...recording.bindings, directCalls: { open: gateway.channel } };
    env = createTypescriptEnvironment();
    await env.setup({
      config: { poolSize: 1, memoryLimitMb: 64 },
      secrets: {},
      logger: createRecordingLogger().logger,
      bindings,
    });
  });
  afterAll(async () => {
    await env?.teardown();
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends calls to the gateway for the granted execution, parses answers in the isolate and falls back to the host', async () => {
    const { exit, record, eid } = await run(`
      const a = await cyrnel.services.fast.tools.echo.invoke({ n: 1 });
      const b = await cyrnel.services.host.tools.echo.invoke({ n: 2 });
      let failure;
      try { await cyrnel.services.fast.tools.fail.invoke({}); } catch (e) { failure = { status: e.status, reason: e.reason, message: e.message }; }
      const many = await Promise.all([1, 2, 3].map((n) => cyrnel.services.fast.tools.echo.invoke({ n })));
      cyrnel.output({ a, b, failure, many: many.map((m) => m.echoed.n), proto: Object.getPrototypeOf(a) === Object.prototype });
    `);
    expect(exit).toBe('success');
    expect(record.output).toEqual({
      a: { echoed: { n: 1 } },
      b: { viaHost: { n: 2 } },
      failure: { status: 502, reason: 'upstream_failed', message: 'upstream said no' },
      many: [1, 2, 3],
      proto: true,
    });
    // Only the call the gateway sent back went through invokeTool.
    expect(record.calls.map((call) => `${call.serviceId}.${call.toolId}`)).toEqual(['host.echo']);
    const mine = gateway.requests.filter((seen) => seen.request.eid === eid);
    expect(mine.map((seen) => `${seen.request.serviceId}.${seen.request.toolId}`).sort()).toEqual(
      ['fast.echo', 'fast.echo', 'fast.echo', 'fast.echo', 'fast.fail', 'host.echo'].sort(),
    );
    // The grant ended with the run.
    for (const token of gateway.tokens) expect(gateway.grants.get(token)?.has(eid) ?? false).toBe(false);
  });

  it('sends the later calls of a tool the gateway does not make (unprepared) straight to the host, for the rest of the execution', async () => {
    const program = `
      const seen = [];
      for (let n = 0; n < 3; n++) seen.push((await cyrnel.services.local.tools.echo.invoke({ n })).local.n);
      seen.push(await cyrnel.services.local.tools.other.invoke({}));
      seen.push(await cyrnel.services.local.connection('work').tools.echo.invoke({ n: 9 }));
      for (let n = 0; n < 2; n++) seen.push((await cyrnel.services.host.tools.echo.invoke({ n })).viaHost.n);
      cyrnel.output({ seen });
    `;
    const first = await run(program);
    expect(first.exit).toBe('success');
    expect(first.record.output).toEqual({ seen: [0, 1, 2, 'other', { local: { n: 9 } }, 0, 1] });
    // Every call reached the host's gate, in order.
    expect(first.record.calls.map((call) => `${call.serviceId}.${call.toolId}`)).toEqual([
      'local.echo',
      'local.echo',
      'local.echo',
      'local.other',
      'local.echo',
      'host.echo',
      'host.echo',
    ]);
    // The gateway was asked once per tool and named connection; a plain "through the host" (which
    // may depend on the call's parameters or the policies) is asked every time.
    const asked = (eid: number) =>
      gateway.requests
        .filter((seen) => seen.request.eid === eid)
        .map(
          (seen) =>
            `${seen.request.serviceId}.${seen.request.toolId}${seen.request.connection ? `@${seen.request.connection}` : ''}`,
        );
    expect(asked(first.eid)).toEqual([
      'local.echo',
      'local.other',
      'local.echo@work',
      'host.echo',
      'host.echo',
    ]);
    // The next execution asks again: what changed in the catalog meanwhile is seen.
    const second = await run(program);
    expect(second.exit).toBe('success');
    expect(asked(second.eid)).toEqual(asked(first.eid));
  });

  it('gives the token over IPC, not on the command line', async () => {
    const { record } = await run('cyrnel.output({ ok: true });');
    expect(record.output).toEqual({ ok: true });
    const children = readFileSync('/proc/self/task/' + process.pid + '/children', 'utf8')
      .trim()
      .split(/\s+/);
    const cmdlines = children
      .filter(Boolean)
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      })
      .filter((cmdline) => cmdline.includes('sandbox-child'));
    expect(cmdlines.length).toBeGreaterThan(0);
    for (const cmdline of cmdlines) for (const token of gateway.tokens) expect(cmdline).not.toContain(token);
  });

  it('revokes a killed execution, whose call in flight the gateway then aborts', async () => {
    const eid = next++;
    const pending = env.execute({
      eid,
      code: `await cyrnel.services.slow.tools.wait.invoke({});`,
      options: { timeoutMs: 60_000 },
      envConfig: {},
    });
    await waitFor(() => gateway.requests.some((seen) => seen.request.eid === eid));
    const key = [...gateway.held.keys()].find((name) => name.endsWith(`:${eid}`));
    expect(key).toBeDefined();
    await env.kill(eid);
    expect(await pending).toBe('canceled');
    expect(gateway.held.has(key as string)).toBe(false);
  });
});
