import type { SealedSecrets } from '@cyrnel/core';
import type { Kysely } from 'kysely';
import type { Database } from './database';
import { parseObject } from './sql-helpers';

/** Which tables hold one kind of owner's config and secrets. */
export interface SettingsTables {
  readonly config: 'module_config' | 'service_config';
  readonly secrets: 'module_secrets' | 'service_secrets';
}

/** Config (JSON text) and sealed secrets of one kind of owner, one row each per owner id. */
export interface SettingsRows {
  getConfig(ownerId: string): Promise<Record<string, unknown> | undefined>;
  setConfig(ownerId: string, config: Record<string, unknown>, at: string): Promise<void>;
  getSecrets(ownerId: string): Promise<SealedSecrets | undefined>;
  setSecrets(ownerId: string, secrets: SealedSecrets, at: string): Promise<void>;
}

/**
 * The config and secrets rows of modules or of services: the two kinds have tables of the same
 * shape (`ConfigTable`, `SecretsTable`), so one implementation serves both.
 */
export function createSettingsRows(db: Kysely<Database>, tables: SettingsTables): SettingsRows {
  return {
    async getConfig(ownerId) {
      const row = await db
        .selectFrom(tables.config)
        .select('config')
        .where('owner_id', '=', ownerId)
        .executeTakeFirst();
      return row ? parseObject(row.config) : undefined;
    },
    async setConfig(ownerId, config, at) {
      const text = JSON.stringify(config);
      await db
        .insertInto(tables.config)
        .values({ owner_id: ownerId, config: text, updated_at: at })
        .onConflict((oc) => oc.column('owner_id').doUpdateSet({ config: text, updated_at: at }))
        .execute();
    },
    async getSecrets(ownerId) {
      const row = await db
        .selectFrom(tables.secrets)
        .select(['key_id', 'iv', 'tag', 'ciphertext'])
        .where('owner_id', '=', ownerId)
        .executeTakeFirst();
      return row ? { keyId: row.key_id, iv: row.iv, tag: row.tag, ciphertext: row.ciphertext } : undefined;
    },
    async setSecrets(ownerId, secrets, at) {
      const values = {
        key_id: secrets.keyId,
        iv: secrets.iv,
        tag: secrets.tag,
        ciphertext: secrets.ciphertext,
      };
      await db
        .insertInto(tables.secrets)
        .values({ owner_id: ownerId, ...values, updated_at: at })
        .onConflict((oc) => oc.column('owner_id').doUpdateSet({ ...values, updated_at: at }))
        .execute();
    },
  };
}
