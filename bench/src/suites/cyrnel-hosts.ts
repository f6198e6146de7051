import { benchPostgresDatabase } from '../cyrnel/postgres-database.ts';
import { treeCpuMs } from '../cyrnel/proc-memory.ts';
import { type ServerProcess, startServerProcess } from '../cyrnel/server-process.ts';
import { loadTest } from '../harness/load-test.ts';
import { TRIVIAL } from '../programs.ts';
import type { SuiteContext } from './suite-context.ts';

/** Connections per host: enough to keep each host's sandbox pool busy. */
const CONNECTIONS_PER_HOST = 8;

/**
 * Several hosts on one PostgreSQL database: 1, 2 and 3 servers on a fresh database,
 * autocannon posting the trivial process to each at once, 2xx per second summed. On a 2-core
 * machine the hosts share the cores with each other and the load generator, so this shows the
 * cost of the shared database and of more processes, not a scale-out: the CPU each host spends per
 * process (the server and its sandbox children) is the number that carries over to more cores.
 */
export async function runCyrnelHosts(ctx: SuiteContext): Promise<void> {
  const { config, report } = ctx;
  const database = await benchPostgresDatabase();
  const { env } = database;
  const servers: ServerProcess[] = [];
  try {
    const body = JSON.stringify({ code: TRIVIAL, wait: true });
    for (const count of [1, 2, 3]) {
      while (servers.length < count) servers.push(await startServerProcess(ctx.resources, env));
      ctx.log(`cyrnel on PostgreSQL: throughput with ${count} host(s)`);
      const before = servers.map((server) => treeCpuMs(server.pid));
      const loads = await Promise.all(
        servers.map((server) =>
          loadTest(`${server.url}/processes`, body, CONNECTIONS_PER_HOST, config.throughputSeconds),
        ),
      );
      const cpuPerProcess = servers.map((server, index) => {
        const after = treeCpuMs(server.pid);
        const start = before[index] ?? { mainMs: 0, childrenMs: 0 };
        const done = Math.max(1, loads[index]?.ok ?? 0);
        return (after.mainMs - start.mainMs + after.childrenMs - start.childrenMs) / done;
      });
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
      report.add({
        section: 'throughput',
        metric: `cyrnel on PostgreSQL, ${count} host${count === 1 ? '' : 's'}: host CPU per process`,
        unit: 'ms',
        value: cpuPerProcess.reduce((sum, ms) => sum + ms, 0) / cpuPerProcess.length,
        note: `user+system CPU of each server and its sandbox children over the processes it answered (mean of the hosts; per host: ${cpuPerProcess
          .map((ms) => `${ms.toFixed(2)} ms`)
          .join(', ')})`,
      });
    }
  } finally {
    for (const server of servers) await server.stop();
    await database.dispose();
  }
}
