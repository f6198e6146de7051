/**
 * The client the MCP conformance suite launches for its `auth/*` scenarios when they run through
 * a cyrnel server (`CYRNEL_URL`, `CYRNEL_API_KEY`; `conformance/run.mjs` picks it when
 * `CYRNEL_URL` is set): `node host-client.mjs <server-url>`, the scenario in
 * `MCP_CONFORMANCE_SCENARIO`, its data (pre-registered clients, keys) in `MCP_CONFORMANCE_CONTEXT`.
 *
 * It does what an operator and a person do with the server's HTTP API: install the suite's MCP
 * server as a service with an `oauth` block (the context's credentials as the service's secrets),
 * authorize its shared `default` connection, open the authorization URL as the person (the
 * suite's authorization servers redirect at once to the server's `/oauth/callback`), refresh the
 * service's tools and call `test-tool` from a process. A step that needs (new) authorization fails
 * with `upstream_unauthorized`: it authorizes again and retries, at most twice per step.
 * The service is deleted after a success; a failed scenario's service stays for a look.
 */
import { randomBytes } from 'node:crypto';
import { CyrnelHttpError, createClient } from '@cyrnel/client';
import { toIdentifier } from '@cyrnel/sdk';
import { DEFAULT_CONNECTION } from '@cyrnel/sdk/api';
import { serviceOAuthOf } from './machine-grant';

/** Authorizations one step (listing the tools, calling one) may ask for again before it fails. */
const MAX_AUTHORIZATIONS_PER_STEP = 2;
/** Redirects the person follows from the authorization URL to the server's callback. */
const MAX_REDIRECTS = 5;

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, string>;
const cyrnelUrl = (process.env.CYRNEL_URL ?? '').replace(/\/+$/, '');
/** Where the server sends the person back: its `--public-url` (default: the URL we reach it at). */
const callbackUrl = `${(process.env.CYRNEL_PUBLIC_URL ?? cyrnelUrl).replace(/\/+$/, '')}/oauth/callback`;
const client = createClient({
  baseUrl: cyrnelUrl,
  ...(process.env.CYRNEL_API_KEY ? { apiKey: process.env.CYRNEL_API_KEY } : {}),
});
const serviceId = `conformance_${toIdentifier(scenario, 'scenario')}_${randomBytes(3).toString('hex')}`;

const log = (line: string) => process.stderr.write(`${line}\n`);

/** A step failed because the connection needs a person (again): `upstream_unauthorized`. */
class NeedsAuthorization extends Error {}

/** The MCP server as a service whose connections sign in with OAuth; no tools until authorized. */
async function install(): Promise<void> {
  const { oauth, secrets } = serviceOAuthOf(scenario, context);
  // The back-compat scenario's metadata names issuer `<server>/oauth` at `<server>/.well-known/…`.
  if (process.env.CONFORMANCE_SKIP_ISSUER_CHECK === '1') oauth.skipIssuerCheck = true;
  await client.services.install({
    id: serviceId,
    adapter: 'mcp',
    definition: JSON.stringify({ transport: 'http', url: serverUrl, oauth }),
    ...(Object.keys(secrets).length > 0 ? { secrets } : {}),
    enabled: true,
  });
  // `test-tool` is called without waiting for a person's approval, whatever the server's default.
  await client.services.setPolicy(serviceId, { default: 'allow' });
  log(`installed ${serviceId}`);
}

/** Authorize the shared connection (made first if the install did not): a person, or none. */
async function authorize(): Promise<void> {
  const start = () => client.connections.authorize(serviceId, DEFAULT_CONNECTION, {});
  const answer = await start().catch(async (error: unknown) => {
    if (!(error instanceof CyrnelHttpError) || error.reason !== 'connection_not_found') throw error;
    await client.connections.create(serviceId, { name: DEFAULT_CONNECTION });
    return start();
  });
  if ('authorizationUrl' in answer) await openAsPerson(answer.authorizationUrl);
  else if (answer.status !== 'connected')
    throw new Error(`the connection is ${answer.status} after authorizing: ${answer.statusMessage}`);
}

/** A browser: follow the authorization server's redirects back to the server's callback. */
async function openAsPerson(authorizationUrl: string): Promise<void> {
  let url = authorizationUrl;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const answer = await fetch(url, { redirect: 'manual' });
    const text = await answer.text();
    if (url.startsWith(callbackUrl)) {
      if (answer.status !== 200) throw new Error(`the server's callback answered ${answer.status}: ${text}`);
      return;
    }
    const location = answer.headers.get('location');
    if (answer.status < 300 || answer.status >= 400 || !location)
      throw new Error(`${new URL(url).origin} answered ${answer.status} instead of sending the person back`);
    url = new URL(location, url).href;
  }
  throw new Error(`no redirect to ${callbackUrl} within ${MAX_REDIRECTS} hops`);
}

/** Run `step`, authorizing again whenever it needs it, at most {@link MAX_AUTHORIZATIONS_PER_STEP} times. */
async function authorized<T>(what: string, step: () => Promise<T>): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof NeedsAuthorization) || round > MAX_AUTHORIZATIONS_PER_STEP) throw error;
      log(`${what}: authorization needed again (round ${round}): ${error.message}`);
      await authorize();
    }
  }
}

/** `POST /services/:id/refresh`: the tools, listed with the connection's tokens. */
async function refresh(): Promise<number> {
  try {
    return (await client.services.refresh(serviceId)).service.toolCount;
  } catch (error) {
    if (error instanceof CyrnelHttpError && error.reason === 'upstream_unauthorized')
      throw new NeedsAuthorization(error.message);
    throw error;
  }
}

/** A process calling the tool, as an agent's code would; its output is the tool's answer. */
async function call(toolId: string): Promise<unknown> {
  const result = await client.processes.run(
    `cyrnel.output({ answer: await cyrnel.services.${serviceId}.tools.${toolId}.invoke({}) });`,
    { timeoutMs: 20_000 },
  );
  if (result.exitState === 'success') return result.output.answer;
  // A refused call fails the code on its own (the process has no reason): its call record says why.
  const { items } = await client.processes.calls(result.id);
  const reason = items.at(-1)?.errorReason ?? result.errorReason;
  const why = `process ${result.id} ended ${result.exitState} (${reason}): ${result.error}`;
  if (reason === 'upstream_unauthorized') throw new NeedsAuthorization(why);
  throw new Error(why);
}

async function main(): Promise<void> {
  if (!serverUrl || !cyrnelUrl)
    throw new Error('usage: CYRNEL_URL=<cyrnel server> host-client.mjs <server-url>');
  await install();
  await authorize();
  const toolCount = await authorized('refresh', refresh);
  const { items } = await client.tools.list({ serviceId });
  log(`tools (${toolCount}): ${items.map((tool) => tool.id).join(', ')}`);
  const testTool = items.find((tool) => tool.id === toIdentifier('test-tool'));
  if (testTool) {
    const answer = await authorized('call', () => call(testTool.id));
    log(`test-tool: ${JSON.stringify(answer)}`);
  }
  await client.services.delete(serviceId);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const reason = error instanceof CyrnelHttpError ? ` ${error.status} ${error.reason}` : '';
    log(`failed:${reason} ${(error as Error).message} (service ${serviceId})`);
    process.exit(1);
  },
);
