import type { CatalogStorage } from '@cyrnel/core';
import type { ServicePolicy } from '@cyrnel/sdk/api';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { parseObject } from './sql-helpers';

type PolicyMethods = Pick<CatalogStorage, 'getServicePolicy' | 'setServicePolicy'>;

/**
 * Each service's policy rules, in `service_policies` (migration 0016): a row once rules were
 * set, none before (read as `{}`). A definition update leaves the row alone; the service's delete
 * takes it along.
 */
export function createServicePolicyRows(db: Kysely<Database>): PolicyMethods {
  return {
    async getServicePolicy(serviceId) {
      const row = await db
        .selectFrom('services')
        .leftJoin('service_policies', 'service_policies.service_id', 'services.id')
        .select('service_policies.policy as policy')
        .where('services.id', '=', serviceId)
        .executeTakeFirst();
      if (!row) return undefined;
      return row.policy === null ? {} : (parseObject(row.policy) as ServicePolicy);
    },
    async setServicePolicy(serviceId, policy, at) {
      // One statement: the row is written only while the service exists.
      const result = await db
        .insertInto('service_policies')
        .columns(['service_id', 'policy', 'updated_at'])
        .expression((eb) =>
          eb
            .selectFrom('services')
            .select((inner) => [
              'services.id',
              inner.val(JSON.stringify(policy)).as('policy'),
              inner.val(at).as('updated_at'),
            ])
            .where('services.id', '=', serviceId),
        )
        .onConflict((conflict) =>
          conflict.column('service_id').doUpdateSet((eb) => ({
            policy: eb.ref('excluded.policy'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
  };
}
