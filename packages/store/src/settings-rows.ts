import type { CatalogStorage, SettingsOwner } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { parseObject } from './sql-helpers';

/**
 * The tables holding each kind of owner's config and secrets. Modules and services keep
 * tables of the same shape (`ConfigTable`, `SecretsTable`), each with a foreign key to its
 * owner's table, so deleting a service drops its settings in the same statement.
 */
const TABLES = {
  module: { config: 'module_config', secrets: 'module_secrets' },
  service: { config: 'service_config', secrets: 'service_secrets' },
} as const;

type SettingsMethods = Pick<CatalogStorage, 'getConfig' | 'setConfig' | 'getSecrets' | 'setSecrets'>;

/** Config (JSON text) and sealed secrets of every owner, one row each, keyed by `{kind, id}`. */
export function createSettingsRows(db: Kysely<Database>): SettingsMethods {
  const tables = (owner: SettingsOwner) => TABLES[owner.kind];
  return {
    async getConfig(owner) {
      const row = await db
        .selectFrom(tables(owner).config)
        .select('config')
        .where('owner_id', '=', owner.id)
        .executeTakeFirst();
      return row ? parseObject(row.config) : undefined;
    },
    async setConfig(owner, config, at) {
      const text = JSON.stringify(config);
      await db
        .insertInto(tables(owner).config)
        .values({ owner_id: owner.id, config: text, updated_at: at })
        .onConflict((oc) => oc.column('owner_id').doUpdateSet({ config: text, updated_at: at }))
        .execute();
    },
    async getSecrets(owner) {
      const row = await db
        .selectFrom(tables(owner).secrets)
        .select(['key_id', 'iv', 'tag', 'ciphertext'])
        .where('owner_id', '=', owner.id)
        .executeTakeFirst();
      return row ? { keyId: row.key_id, iv: row.iv, tag: row.tag, ciphertext: row.ciphertext } : undefined;
    },
    async setSecrets(owner, secrets, at) {
      const values = {
        key_id: secrets.keyId,
        iv: secrets.iv,
        tag: secrets.tag,
        ciphertext: secrets.ciphertext,
      };
      await db
        .insertInto(tables(owner).secrets)
        .values({ owner_id: owner.id, ...values, updated_at: at })
        .onConflict((oc) => oc.column('owner_id').doUpdateSet({ ...values, updated_at: at }))
        .execute();
    },
  };
}
