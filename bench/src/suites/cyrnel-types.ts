import type { CyrnelApi } from '../cyrnel/cyrnel-api.ts';
import type { SuiteContext } from './suite-context.ts';

/** A 5-tool selection: what an agent that files and reads issues would pick. */
const SELECTION = ['issues_create', 'issues_get', 'repos_get', 'pulls_list', 'issues_list_comments'];
const TARGET_BYTES = 20 * 1024;

async function typesBytes(api: CyrnelApi, query: string): Promise<number> {
  const res = await fetch(`${api.url}/environment/types${query}`, { signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  if (!res.ok)
    throw new Error(`GET /environment/types${query} answered ${res.status}: ${text.slice(0, 300)}`);
  return Buffer.byteLength(text);
}

/**
 * The size of the declarations an agent reads (`GET /environment/types`): GitHub's whole
 * description and a 5-tool selection. Needs the first GitHub copy (`github0`) of the install part.
 */
export async function runCyrnelTypes(ctx: SuiteContext, api: CyrnelApi): Promise<void> {
  const service = 'github0';
  await api.post(`/services/${service}/enabled`, { enabled: true });
  try {
    ctx.log("cyrnel: measuring the declarations of GitHub's description");
    const whole = await typesBytes(api, `?services=${service}`);
    const tools = SELECTION.map((tool) => `${service}.${tool}`).join(',');
    const selected = await typesBytes(api, `?tools=${tools}`);
    ctx.report.add({
      section: 'types',
      metric: "cyrnel: GitHub's declarations, whole",
      unit: 'bytes',
      value: whole,
      note: 'GET /environment/types?services=<github>: every tool, each shared schema declared once',
    });
    ctx.report.add({
      section: 'types',
      metric: "cyrnel: GitHub's declarations, 5 tools",
      unit: 'bytes',
      value: selected,
      target: '< 20 KB',
      met: selected < TARGET_BYTES,
      note: `GET /environment/types?tools=… for ${SELECTION.join(', ')}`,
    });
  } finally {
    await api.post(`/services/${service}/enabled`, { enabled: false });
  }
}
