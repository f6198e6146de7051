import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface CpuProfile {
  /** Microseconds on the machine's monotonic clock (as `process.hrtime` reads it, in ns). */
  readonly startTime: number;
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where the server's busy time goes, per unit of work (a process or a tool call). */
export interface ProfileSummary {
  readonly busyMsPerUnit: number;
  /** Inclusive milliseconds per unit and share of busy time, per area. */
  readonly areas: ReadonlyArray<{
    readonly area: string;
    readonly msPerUnit: number;
    readonly share: number;
  }>;
  /** The functions with the most self time, per unit. */
  readonly hottest: ReadonlyArray<{ readonly fn: string; readonly msPerUnit: number }>;
}

/** Named areas of a profile, each matched by a predicate on a call frame. */
export type ProfileAreas = ReadonlyArray<readonly [string, (cf: CallFrame) => boolean]>;

/** Areas of the server process. They overlap (kysely runs inside the store, inside core): each is inclusive. */
export const SERVER_AREAS: ProfileAreas = [
  [
    'HTTP in (node:http server + hono + @cyrnel/http)',
    (cf) => /_http_server|\/hono\/|hono\+node-server|packages\/http\//.test(cf.url),
  ],
  ['core (gate, processes, tools)', (cf) => cf.url.includes('core/dist')],
  ['store (kysely + better-sqlite3)', (cf) => /store\/dist|\/kysely\/|better-sqlite3/.test(cf.url)],
  [
    '  of which better-sqlite3 prepare',
    (cf) => cf.functionName === 'prepare' && cf.url.includes('better-sqlite3'),
  ],
  ['environment host side (env-typescript-ivm)', (cf) => cf.url.includes('env-typescript-ivm')],
  ['  of which IPC writes to the sandbox child', (cf) => cf.functionName === 'writeChannelMessage'],
  ['adapter-openapi', (cf) => cf.url.includes('adapter-openapi')],
  ['  of which outbound node:http client', (cf) => cf.url.includes('_http_client')],
  ['garbage collector', (cf) => cf.functionName === '(garbage collector)'],
];

/** Areas of a sandbox child process (the environment's worker). */
export const CHILD_AREAS: ProfileAreas = [
  ['transpile (sucrase)', (cf) => cf.url.includes('/sucrase/')],
  ['  of which option checks (ts-interface-checker)', (cf) => cf.url.includes('ts-interface-checker')],
  ['isolate work (env-typescript-ivm runner, isolated-vm)', (cf) => cf.url.includes('env-typescript-ivm')],
  ['IPC (child_process serialization and pipe)', (cf) => /child_process|stream_base_commons/.test(cf.url)],
  ['garbage collector', (cf) => cf.functionName === '(garbage collector)'],
];

/** Areas of the server's worker threads (the egress gateway's, the gate's validation, the MCP adapter's). */
export const WORKER_AREAS: ProfileAreas = [
  [
    'egress gateway (core gateway/ and direct-calls/)',
    (cf) => /core\/dist\/(egress-worker|gateway|direct)/.test(cf.url),
  ],
  ['adapter-openapi', (cf) => cf.url.includes('adapter-openapi')],
  ['  of which outbound node:http client', (cf) => cf.url.includes('_http_client')],
  ['schema validation (ajv)', (cf) => /\/ajv\/|validat/.test(cf.url)],
  [
    'socket to the sandbox child (node:net, stream_base_commons)',
    (cf) => /node:net|stream_base_commons/.test(cf.url),
  ],
  [
    'messages to/from the main thread (MessagePort)',
    (cf) => /internal\/worker|per_context\/messageport/.test(cf.url) || cf.functionName === 'postMessage',
  ],
  ['JSON (parse, stringify)', (cf) => /^(parse|stringify)$/.test(cf.functionName) && cf.url === ''],
  ['garbage collector', (cf) => cf.functionName === '(garbage collector)'],
];

/** Areas of the sandbox child that runs a chain of tool calls. */
export const CHILD_CALL_AREAS: ProfileAreas = [
  ['isolate work (env-typescript-ivm runner, isolated-vm)', (cf) => cf.url.includes('env-typescript-ivm')],
  [
    '  of which the egress gateway client',
    (cf) => cf.url.includes('gateway-client') || /egress-frame|sdk\/dist\/node/.test(cf.url),
  ],
  [
    'socket to the gateway (node:net, stream_base_commons)',
    (cf) => /node:net|stream_base_commons/.test(cf.url),
  ],
  ['IPC to the host (child_process serialization)', (cf) => /child_process/.test(cf.url)],
  ['garbage collector', (cf) => cf.functionName === '(garbage collector)'],
];

function short(cf: CallFrame): string {
  return `${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-2).join('/')}`;
}

/** Summarizes a V8 `.cpuprofile` over `units` units of work (module loading at start included). */
export function summarizeCpuProfile(
  path: string,
  units: number,
  areas: ProfileAreas = SERVER_AREAS,
  /** Only the samples taken within this window, in µs of the monotonic clock (`hrtime` / 1000). */
  window?: { readonly fromUs: number; readonly toUs: number },
): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((sample, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    const leaf = byId.get(sample);
    if (!leaf || leaf.callFrame.functionName === '(idle)' || leaf.callFrame.functionName === '(program)')
      return;
    busy += delta;
    self.set(short(leaf.callFrame), (self.get(short(leaf.callFrame)) ?? 0) + delta);
    const hit = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const cf = (byId.get(id) as ProfileNode).callFrame;
      for (const [area, matches] of areas) if (matches(cf)) hit.add(area);
    }
    for (const area of hit) inclusive.set(area, (inclusive.get(area) ?? 0) + delta);
  });
  const perUnit = (us: number) => us / 1000 / units;
  return {
    busyMsPerUnit: perUnit(busy),
    areas: areas.map(([area]) => ({
      area,
      msPerUnit: perUnit(inclusive.get(area) ?? 0),
      share: busy ? (inclusive.get(area) ?? 0) / busy : 0,
    })),
    hottest: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([fn, us]) => ({ fn, msPerUnit: perUnit(us) })),
  };
}

/** The summary as plain text lines. */
export function formatProfileSummary(
  title: string,
  summary: ProfileSummary,
  who = 'server main thread',
): string {
  const lines = [`## ${title}`, '', `${who} busy: ${summary.busyMsPerUnit.toFixed(3)} ms per unit`, ''];
  lines.push('| area (inclusive) | ms per unit | share of busy |', '|---|---|---|');
  for (const a of summary.areas)
    lines.push(`| ${a.area} | ${a.msPerUnit.toFixed(3)} | ${(a.share * 100).toFixed(0)} % |`);
  lines.push('', '| hottest functions (self) | ms per unit |', '|---|---|');
  for (const h of summary.hottest) lines.push(`| \`${h.fn}\` | ${h.msPerUnit.toFixed(3)} |`);
  return `${lines.join('\n')}\n`;
}
