import { type AuthorizationServer, followAuthorization, startAuthorizationServer } from '@cyrnel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers';
import { oauthSpec, type ProtectedUpstream, startProtectedUpstream } from '../oauth-upstream';
import { expectHealthDuring } from './health-probe';

const KEY = 'oauth-refusals-admin';
const WEB = { clientId: 'cyrnel-web', clientSecret: 'web-secret-7a1e3c5b' };
/** Programs at once, each making {@link CALLS} calls at once. */
const PROGRAMS = 20;
const CALLS = 50;

describe('an OAuth upstream that refuses every token', () => {
  const { api, url } = useServer({ apiKey: KEY, urlAllowCidrs: ['127.0.0.1/32'] });
  let upstream: ProtectedUpstream;
  let issuer: AuthorizationServer;

  beforeAll(async () => {
    upstream = await startProtectedUpstream(() => [issuer.issuer]);
    issuer = await startAuthorizationServer({
      clients: [{ ...WEB, redirectUris: [`${url()}/oauth/callback`] }],
      scopes: ['read'],
    });
    const installed = await api('POST', '/services', {
      id: 'refusing',
      adapter: 'openapi',
      definition: JSON.stringify(oauthSpec(upstream.url.replace(/\/$/, ''), issuer.issuer)),
      enabled: true,
    });
    expect(installed.status, installed.text).toBe(201);
    const made = await api('POST', '/services/refusing/connections', { name: 'default' });
    expect(made.status, made.text).toBe(201);
    const started = await api('POST', '/services/refusing/connections/default/authorize', {
      ...WEB,
      scopes: ['read'],
      resource: upstream.url,
    });
    expect(started.status, started.text).toBe(200);
    const callback = await followAuthorization(new URL(started.body.authorizationUrl));
    const landed = await fetch(`${url()}/oauth/callback${callback.search}`);
    expect(await landed.text()).toContain('Connected');
  });
  afterAll(async () => {
    await upstream?.close();
    await issuer?.close();
  });

  it('keeps /health prompt while 1,000 calls at once are refused with 401: each made once more after a shared refresh', async () => {
    const code = `
      const tools = cyrnel.services.refusing.tools;
      const answers = await Promise.all(Array.from({ length: ${CALLS} }, () => tools.whoami.invoke({ query: { who: 'flood' } })));
      cyrnel.output({ statuses: answers.map((answer) => answer.status) });`;
    // A call the upstream accepts first: the connection works, its token is fresh.
    const accepted = await api('POST', '/processes', {
      code: code.replace("'flood'", "'before'").replace(`length: ${CALLS}`, 'length: 1'),
      wait: true,
    });
    expect(accepted.body.output, accepted.text).toEqual({ statuses: [200] });
    upstream.refusing.add('flood');
    const refreshes = issuer.count({ grantType: 'refresh_token' });
    const from = upstream.seen.length;
    const runs = await expectHealthDuring(
      `/health while an OAuth upstream refuses ${PROGRAMS * CALLS} calls at once (401)`,
      url(),
      () =>
        Promise.all(
          Array.from({ length: PROGRAMS }, () =>
            api('POST', '/processes', { code, wait: true, timeoutMs: 120_000 }),
          ),
        ),
    );
    for (const run of runs) {
      expect(run.body.output, run.text.slice(0, 500)).toEqual({ statuses: Array(CALLS).fill(401) });
    }
    // Each call was made twice (the second after a refresh), never more.
    expect(upstream.seen.length - from).toBe(2 * PROGRAMS * CALLS);
    // A refresh is asked only by a call refused with the tokens held now: the calls made with one
    // token share one; programs that start later on a busy machine may ask once more each.
    const asked = issuer.count({ grantType: 'refresh_token' }) - refreshes;
    console.log(`refreshes for ${PROGRAMS * CALLS} refused calls: ${asked}`);
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(PROGRAMS + 1);
  }, 300_000);
});
