import type { ProcessStorage } from '@cyrnel/core';
import type { ProcessState } from '@cyrnel/sdk';
import type { ErrorReason } from '@cyrnel/sdk/api';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { parseObject } from './sql-helpers';

/** The states of a process that is not over: a kill can be asked of it. */
export const LIVE_STATES: readonly ProcessState[] = ['queued', 'running', 'waiting', 'terminating'];

/** The part of the process storage about the hosts sharing the database. */
export type HostRows = Pick<
  ProcessStorage,
  'heartbeat' | 'hosts' | 'removeHost' | 'owner' | 'requestKill' | 'takeKillRequests'
>;

/**
 * The rows of hosts sharing one database: each host's heartbeat and active modules (`hosts`),
 * which host owns a process and how fresh its heartbeat is, and kills asked of a run another host
 * owns (`kill_requested_at`, taken by its owner). Part of `createProcessStore`; the shared queue's
 * claims stay there, beside the process rows they return.
 *
 * @example
 * ```ts
 * const rows = createHostRows(db);
 * await rows.heartbeat('host-a', new Date().toISOString(), { openapi: 'active' });
 * await rows.owner(42); // { hostId: 'host-a', heartbeatAt: '2026-…' }
 * ```
 */
export function createHostRows(db: Kysely<Database>): HostRows {
  return {
    async heartbeat(hostId, at, modules) {
      const json = modules === undefined ? undefined : JSON.stringify(modules);
      await db
        .insertInto('hosts')
        .values({
          id: hostId,
          started_at: at,
          heartbeat_at: at,
          ...(json === undefined ? {} : { modules: json }),
        })
        .onConflict((conflict) =>
          conflict
            .column('id')
            .doUpdateSet({ heartbeat_at: at, ...(json === undefined ? {} : { modules: json }) }),
        )
        .execute();
    },
    async hosts(since) {
      const rows = await db
        .selectFrom('hosts')
        .select(['id', 'heartbeat_at', 'modules'])
        .where('heartbeat_at', '>=', since)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        heartbeatAt: row.heartbeat_at,
        modules: parseObject(row.modules) as Record<string, string>,
      }));
    },
    async removeHost(hostId) {
      await db.deleteFrom('hosts').where('id', '=', hostId).execute();
    },
    async owner(id) {
      const row = await db
        .selectFrom('processes')
        .leftJoin('hosts', 'hosts.id', 'processes.owner_host')
        .select(['processes.owner_host as host', 'hosts.heartbeat_at as beat'])
        .where('processes.id', '=', id)
        .executeTakeFirst();
      return row ? { hostId: row.host ?? null, heartbeatAt: row.beat ?? null } : undefined;
    },
    async requestKill(id, at, reason) {
      await db
        .updateTable('processes')
        .set({ kill_requested_at: at, kill_reason: reason ?? null })
        .where('id', '=', id)
        .where('state', 'in', LIVE_STATES)
        .execute();
    },
    async takeKillRequests(hostId) {
      return db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom('processes')
          .select(['id', 'kill_reason'])
          .where('owner_host', '=', hostId)
          .where('kill_requested_at', 'is not', null)
          .execute();
        if (rows.length === 0) return [];
        const ids = rows.map((row) => Number(row.id));
        await trx
          .updateTable('processes')
          .set({ kill_requested_at: null, kill_reason: null })
          .where('id', 'in', ids)
          .execute();
        return rows.map((row) => ({
          id: Number(row.id),
          reason: (row.kill_reason ?? null) as ErrorReason | null,
        }));
      });
    },
  };
}
