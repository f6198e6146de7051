import type { PrincipalListRow, PrincipalRow, PrincipalStorage } from '@cyrnel/core';
import type { PrincipalKind } from '@cyrnel/sdk/api';
import type { Kysely } from 'kysely';
import type { Database } from './database';

/** A principal as the `principals` table holds it. */
export const principalValues = (row: PrincipalRow) => ({
  id: row.id,
  name: row.name,
  kind: row.kind,
  created_at: row.createdAt,
  ...(row.externalSubject === undefined ? {} : { external_subject: row.externalSubject }),
});

/** `principals` with each one's key count, as one query (a correlated count over the key index). */
function selectPrincipals(db: Kysely<Database>) {
  return db
    .selectFrom('principals')
    .selectAll('principals')
    .select((eb) =>
      eb
        .selectFrom('api_keys')
        .select(eb.fn.countAll<number | string>().as('n'))
        .whereRef('api_keys.principal_id', '=', 'principals.id')
        .as('key_count'),
    );
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectPrincipals>['execute']>>[number];

const toRow = (row: Selected): PrincipalListRow => ({
  id: row.id,
  name: row.name,
  kind: row.kind as PrincipalKind,
  createdAt: row.created_at,
  ...(row.external_subject === null ? {} : { externalSubject: row.external_subject }),
  keyCount: Number(row.key_count ?? 0),
});

/**
 * The principals half of the key store (`PrincipalStorage` of `@cyrnel/core`) over the
 * `principals` table of migration 0017. Keys point at their principal with a foreign key, so a
 * principal is never deleted from under a key even when two hosts race.
 */
export function createPrincipalRows(db: Kysely<Database>): PrincipalStorage {
  return {
    async insertPrincipal(row) {
      await db.insertInto('principals').values(principalValues(row)).execute();
    },

    async getPrincipal(id) {
      const row = await selectPrincipals(db).where('principals.id', '=', id).executeTakeFirst();
      return row && toRow(row);
    },

    async findPrincipalBySubject(subject) {
      const row = await selectPrincipals(db)
        .where('principals.external_subject', '=', subject)
        .executeTakeFirst();
      return row && toRow(row);
    },

    async listPrincipals({ after, limit }) {
      let query = selectPrincipals(db);
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb('principals.created_at', '>', after.createdAt),
            eb.and([eb('principals.created_at', '=', after.createdAt), eb('principals.id', '>', after.id)]),
          ]),
        );
      }
      const rows = await query
        .orderBy('principals.created_at')
        .orderBy('principals.id')
        .limit(limit)
        .execute();
      return rows.map(toRow);
    },

    async deletePrincipal(id) {
      const result = await db
        .deleteFrom('principals')
        .where('id', '=', id)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb.selectFrom('api_keys').select('api_keys.id').where('api_keys.principal_id', '=', id),
            ),
          ),
        )
        .executeTakeFirst();
      if (Number(result.numDeletedRows) > 0) return 'deleted';
      const left = await db.selectFrom('principals').select('id').where('id', '=', id).executeTakeFirst();
      return left ? 'has_keys' : 'not_found';
    },
  };
}
