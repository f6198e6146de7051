import { createCyrnelApi } from '../cyrnel/cyrnel-api.ts';
import { benchPostgresDatabase } from '../cyrnel/postgres-database.ts';
import { startServerProcess } from '../cyrnel/server-process.ts';
import { readGitHubDefinition } from '../github-definition.ts';
import { percentile, summarize } from '../harness/stats.ts';
import type { SuiteContext } from './suite-context.ts';

/**
 * What agents ask for: exact and qualified ids, the words of a task, camelCase and a word being
 * typed, broad single words, FTS5 syntax, and queries that match nothing (the old worst case).
 */
const QUERIES = [
  'issues_create',
  'github3.pulls_merge',
  'create issue',
  'list pull request reviews',
  'delete repository webhook',
  'star a repository',
  'get the authenticated user',
  'upload release asset',
  'workflow run logs',
  'add labels to an issue',
  'secret scanning alerts',
  'listCommits',
  'codespace machin',
  'repository',
  'list',
  'NEAR("merge" OR -pull:*',
  'frobnicate',
  'xylophone quokka',
  'zzyzx_quux',
] as const;

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * GitHub's REST description with what search reads of each operation (operationId, summary,
 * description, tags; method and path as they are) and nothing else: ~0.8 MB instead of 12.4 MB,
 * so 82 copies install in seconds.
 */
async function searchableGitHub(): Promise<string> {
  const doc = JSON.parse(await readGitHubDefinition()) as {
    info: unknown;
    servers: unknown;
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [route, item] of Object.entries(doc.paths)) {
    const operations: Record<string, unknown> = {};
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const { operationId, summary, description, tags } = op;
      operations[method] = {
        operationId,
        summary,
        description,
        tags,
        responses: { 200: { description: 'OK' } },
      };
    }
    paths[route] = operations;
  }
  return JSON.stringify({ openapi: '3.0.3', info: doc.info, servers: doc.servers, paths });
}

/** The database a search server runs on: its own SQLite file, or a fresh PostgreSQL database. */
export interface SearchDatabase {
  /** Shown in the row's name (`SQLite`, `PostgreSQL`). */
  readonly label: string;
  /** Variables for the server (`CYRNEL_DATABASE_URL`, ...). */
  readonly env: Record<string, string>;
  /** Drop what was created for it. */
  dispose(): Promise<void>;
}

/** A fresh PostgreSQL database for one search server. */
export async function postgresSearchDatabase(): Promise<SearchDatabase> {
  return { label: 'PostgreSQL', ...(await benchPostgresDatabase()) };
}

/**
 * Tool search at scale: a fresh server holding GitHub's ~1,200 operations under many
 * service ids (82 in a full run: ~100k tools; 8 in `--quick`), two services and one tool disabled,
 * then `GET /tools?query=…&limit=20` over a rotating query mix: p50 and p95. On SQLite by default,
 * or on the given database (the row names it).
 */
export async function runCyrnelSearch(ctx: SuiteContext, database?: SearchDatabase): Promise<void> {
  const { config, report } = ctx;
  const on = database ? ` (${database.label})` : '';
  ctx.log(`cyrnel search${on}: starting a server for the search catalog`);
  const server = await startServerProcess(ctx.resources, database?.env);
  try {
    const api = createCyrnelApi(server.url);
    const definition = await searchableGitHub();
    let tools = 0;
    const installStarted = performance.now();
    for (let i = 0; i < config.searchCopies; i++) {
      if (i % 10 === 0) ctx.log(`cyrnel search${on}: installing copy ${i + 1} of ${config.searchCopies}`);
      const body = JSON.stringify({ id: `github${i}`, adapter: 'openapi', definition, enabled: true });
      tools += Number(((await api.post('/services', body)) as { toolCount?: number }).toolCount ?? 0);
    }
    const installMs = performance.now() - installStarted;
    // What must never be answered: a disabled service (two) and a disabled tool.
    for (const id of [`github${config.searchCopies - 1}`, `github${Math.floor(config.searchCopies / 2)}`]) {
      await api.post(`/services/${id}/enabled`, { enabled: false });
    }
    await api.post('/tools/github0/issues_create/enabled', { enabled: false });

    ctx.log(`cyrnel search${on}: ${config.searchReps} queries over ${tools} tools`);
    const search = (query: string) => api.get(`/tools?query=${encodeURIComponent(query)}&limit=20`);
    for (const query of QUERIES) await search(query);
    const samples: number[] = [];
    const byQuery = new Map<string, number[]>(QUERIES.map((query) => [query, []]));
    for (let i = 0; i < config.searchReps; i++) {
      const query = QUERIES[i % QUERIES.length] as string;
      const started = performance.now();
      await search(query);
      const ms = performance.now() - started;
      samples.push(ms);
      byQuery.get(query)?.push(ms);
    }
    // The same route without a query (a listing page): HTTP, routing and JSON, the search's floor.
    const listing: number[] = [];
    for (let i = 0; i < Math.min(200, config.searchReps); i++) {
      const started = performance.now();
      await api.get('/tools?limit=20');
      listing.push(performance.now() - started);
    }
    const stats = summarize(samples);
    const p95 = percentile(
      [...samples].sort((a, b) => a - b),
      95,
    );
    const perQuery = [...byQuery].map(([query, times]) => `"${query}" ${summarize(times).p50.toFixed(2)} ms`);
    const judged = tools >= 90_000;
    report.add({
      section: 'search',
      metric: `cyrnel${on}: GET /tools?query=… with ${tools.toLocaleString('en-US')} tools`,
      unit: 'ms',
      stats,
      target: '≤ 5 ms p50, ≤ 10 ms p95 (100k tools)',
      met: judged ? stats.p50 <= 5 && p95 <= 10 : null,
      note:
        `p95 ${p95.toFixed(2)} ms; ${QUERIES.length} queries rotating (3 match nothing), limit 20; ` +
        `GET /tools?limit=20 without a query takes ${summarize(listing).p50.toFixed(2)} ms at the median; ` +
        `${config.searchCopies} copies of GitHub's ${Math.round(tools / config.searchCopies)} operations ` +
        `installed and enabled in ${(installMs / 1000).toFixed(1)} s, two services and a tool disabled; ` +
        `p50 per query: ${perQuery.join(', ')}` +
        (judged ? '' : '; fewer than 100k tools in this mode, so the target is not judged'),
    });
  } finally {
    await server.stop();
    await database?.dispose();
  }
}
