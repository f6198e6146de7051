import { freshPostgresDatabase } from '../cyrnel/postgres-database.ts';
import { type ServerProcess, startServerProcess } from '../cyrnel/server-process.ts';
import { loadTest } from '../harness/load-test.ts';
import { TRIVIAL } from '../programs.ts';
import type { SuiteContext } from './suite-context.ts';

/** Connections per host: enough to keep each host's sandbox pool busy. */
const CONNECTIONS_PER_HOST = 8;

/**
 * Several hosts on one PostgreSQL database (issue 22): 1, 2 and 3 servers on a fresh database,
 * autocannon posting the trivial process to each at once, 2xx per second summed. On a 2-core
 * machine the hosts share the cores with each other and the load generator, so this shows the
 * cost of the shared database and of more processes, not a scale-out.
 */
export async function runCyrnelHosts(ctx: SuiteContext): Promise<void> {
  const { config, report } = ctx;
  const database = await freshPostgresDatabase();
  const { env } = database;
  const servers: ServerProcess[] = [];
  try {
    const body = JSON.stringify({ code: TRIVIAL, wait: true });
    for (const count of [1, 2, 3]) {
      while (servers.length < count) servers.push(await startServerProcess(ctx.resources, env));
      ctx.log(`cyrnel on PostgreSQL: throughput with ${count} host(s)`);
      const loads = await Promise.all(
        servers.map((server) =>
          loadTest(`${server.url}/processes`, body, CONNECTIONS_PER_HOST, config.throughputSeconds),
        ),
      );
      const perSecond = loads.reduce((sum, load) => sum + load.perSecond, 0);
      const errors = loads.reduce((sum, load) => sum + load.errors, 0);
      report.add({
        section: 'throughput',
        metric: `cyrnel on PostgreSQL, ${count} host${count === 1 ? '' : 's'}: processes/s`,
        unit: 'proc/s',
        value: perSecond,
        note: `${CONNECTIONS_PER_HOST} connections per host, ${config.throughputSeconds} s; ${errors} errors; per host: ${loads
          .map((load) => `${load.perSecond.toFixed(0)}/s`)
          .join(', ')}`,
      });
    }
  } finally {
    for (const server of servers) await server.stop();
    await database.dispose();
  }
}
