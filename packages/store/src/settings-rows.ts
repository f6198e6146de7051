import type { CatalogStorage, SettingsOwner } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import { readDefaultSecrets, writeDefaultSecrets } from './connection-rows';
import type { Database } from './database';
import { parseObject } from './sql-helpers';

/**
 * The tables holding each kind of owner's config. Modules and services keep tables of the same
 * shape (`ConfigTable`), each with a foreign key to its owner's table, so deleting a service drops
 * its settings in the same statement. A module's secrets are a row of `module_secrets`; a
 * service's are its shared `default` connection in `service_connections` (migration 0018).
 */
const CONFIG_TABLES = { module: 'module_config', service: 'service_config' } as const;

type SettingsMethods = Pick<CatalogStorage, 'getConfig' | 'setConfig' | 'getSecrets' | 'setSecrets'>;

/** Config (JSON text) and sealed secrets of every owner, one row each, keyed by `{kind, id}`. */
export function createSettingsRows(db: Kysely<Database>): SettingsMethods {
  const configTable = (owner: SettingsOwner) => CONFIG_TABLES[owner.kind];
  return {
    async getConfig(owner) {
      const row = await db
        .selectFrom(configTable(owner))
        .select('config')
        .where('owner_id', '=', owner.id)
        .executeTakeFirst();
      return row ? parseObject(row.config) : undefined;
    },
    async setConfig(owner, config, at) {
      const text = JSON.stringify(config);
      await db
        .insertInto(configTable(owner))
        .values({ owner_id: owner.id, config: text, updated_at: at })
        .onConflict((oc) => oc.column('owner_id').doUpdateSet({ config: text, updated_at: at }))
        .execute();
    },
    async getSecrets(owner) {
      if (owner.kind === 'service') return readDefaultSecrets(db, owner.id);
      const row = await db
        .selectFrom('module_secrets')
        .select(['key_id', 'iv', 'tag', 'ciphertext'])
        .where('owner_id', '=', owner.id)
        .executeTakeFirst();
      return row ? { keyId: row.key_id, iv: row.iv, tag: row.tag, ciphertext: row.ciphertext } : undefined;
    },
    async setSecrets(owner, secrets, at) {
      if (owner.kind === 'service') return writeDefaultSecrets(db, owner.id, secrets, at);
      const values = {
        key_id: secrets.keyId,
        iv: secrets.iv,
        tag: secrets.tag,
        ciphertext: secrets.ciphertext,
      };
      await db
        .insertInto('module_secrets')
        .values({ owner_id: owner.id, ...values, updated_at: at })
        .onConflict((oc) => oc.column('owner_id').doUpdateSet({ ...values, updated_at: at }))
        .execute();
    },
  };
}
