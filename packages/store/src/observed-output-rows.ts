import type { CatalogStorage } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { flag } from './sql-helpers';

type ObservedMethods = Pick<CatalogStorage, 'setServiceObserveOutputs' | 'updateObservedOutput'>;

/**
 * The learned result shapes (`tools.observed_output`) and their switch per service
 * (`services.observe_outputs`), migration 0021. A shape is written only by a conditional update
 * on the exact text the writer read, so hosts on one database merge into each other's shapes.
 */
export function createObservedOutputRows(db: Kysely<Database>): ObservedMethods {
  return {
    async setServiceObserveOutputs(serviceId, observe) {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('services')
          .set({ observe_outputs: flag(observe) })
          .where('id', '=', serviceId)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await trx
          .updateTable('tools')
          .set({ observed_output: null })
          .where('service_id', '=', serviceId)
          .where('observed_output', 'is not', null)
          .execute();
        return true;
      });
    },
    async updateObservedOutput(serviceId, toolId, expected, next) {
      const update = db
        .updateTable('tools')
        .set({ observed_output: JSON.stringify(next) })
        .where('service_id', '=', serviceId)
        .where('id', '=', toolId)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('services')
              .select('services.id')
              .where('services.id', '=', serviceId)
              .where('services.observe_outputs', '=', 1),
          ),
        );
      const result = await (expected === null
        ? update.where('observed_output', 'is', null)
        : update.where('observed_output', '=', JSON.stringify(expected))
      ).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
