import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers';
import { oauthSpec } from '../oauth-upstream';
import { expectHealthDuring } from './health-probe';

const KEY = 'oauth-floods-admin';
const WEB = { clientId: 'cyrnel-web', clientSecret: 'web-secret-0b1c2d3e' };
/** Sign-ins started at once against the silent authorization server. */
const AUTHORIZES = 100;
/** Callbacks with states the server never issued, in batches of {@link BATCH}. */
const CALLBACKS = 2_000;
const BATCH = 100;

/**
 * An authorization server that accepts connections and never answers: the worst a slow one can
 * do to a sign-in (the server learns its metadata before it answers with the authorization URL).
 */
async function startSilentServer(): Promise<{ url: string; accepted(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('OAuth sign-ins under floods', () => {
  const { api, url } = useServer({ apiKey: KEY, urlAllowCidrs: ['127.0.0.1/32'] });
  let silent: Awaited<ReturnType<typeof startSilentServer>>;

  beforeAll(async () => {
    silent = await startSilentServer();
    const installed = await api('POST', '/services', {
      id: 'slow',
      adapter: 'openapi',
      definition: JSON.stringify(oauthSpec('http://127.0.0.1:9/', silent.url)),
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    for (let i = 0; i < AUTHORIZES; i++) {
      const made = await api('POST', '/services/slow/connections', { name: `c${i}` });
      expect(made.status, made.text).toBe(201);
    }
  });
  afterAll(async () => {
    await silent?.close();
  });

  it('keeps /health prompt through sign-ins against a silent authorization server and thousands of forged callback states', async () => {
    const [authorized, callbacks] = await expectHealthDuring(
      `/health during ${AUTHORIZES} sign-ins against a silent authorization server and ${CALLBACKS} forged callbacks`,
      url(),
      async () => {
        let settled = 0;
        const signIns = Promise.all(
          Array.from({ length: AUTHORIZES }, (_, i) =>
            api('POST', `/services/slow/connections/c${i}/authorize`, { ...WEB, scopes: ['read'] }).finally(
              () => {
                settled++;
              },
            ),
          ),
        );
        // Every sign-in waits on the silent server, outside the service's lock: the service's other
        // connections are served meanwhile.
        while (silent.accepted() < AUTHORIZES) await new Promise((resolve) => setTimeout(resolve, 20));
        const made = await api('POST', '/services/slow/connections', { name: 'meanwhile' });
        expect(made.status, made.text).toBe(201);
        expect(settled).toBe(0);
        const statuses: { status: number; reason: unknown }[] = [];
        for (let sent = 0; sent < CALLBACKS; sent += BATCH) {
          const batch = await Promise.all(
            Array.from({ length: BATCH }, async () => {
              // States of the longest length accepted, and longer: each one hashed and looked up, none found.
              const state = randomBytes(sent % 400 === 0 ? 1_200 : 700).toString('base64url');
              const response = await fetch(`${url()}/oauth/callback?state=${state}&code=${state}`);
              const text = await response.text();
              return {
                status: response.status,
                reason: text.startsWith('{') ? JSON.parse(text).reason : text,
              };
            }),
          );
          statuses.push(...batch);
        }
        return [await signIns, statuses] as const;
      },
    );
    // Every forged state is refused with a reason; none signs anything in.
    expect(new Set(callbacks.map((c) => c.status))).toEqual(new Set([400]));
    expect(new Set(callbacks.map((c) => c.reason))).toEqual(new Set(['oauth_state_invalid']));
    // The silent server's metadata is optional: each sign-in still answers its authorization URL
    // once the metadata request gives up, pointing at the definition's endpoint.
    for (const signIn of authorized) {
      expect(signIn.status, signIn.text).toBe(200);
      expect(new URL(signIn.body.authorizationUrl).origin).toBe(silent.url);
    }
    const connections = await api('GET', '/services/slow/connections');
    expect(
      connections.body.items.every((c: { oauth?: { state?: string } }) => c.oauth?.state !== 'connected'),
    ).toBe(true);
  }, 120_000);
});
