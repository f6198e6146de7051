import type { CatalogStorage, SettingsOwner } from '../catalog/catalog-storage';
import type { SealedSecrets, SecretsCipher } from './secrets-cipher';

/** Reads and writes encrypted secrets, re-encrypting records found under a previous key. */
export interface SecretsVault {
  /** The decrypted secrets (empty object when none were stored). */
  read(owner: SettingsOwner): Promise<Record<string, unknown>>;
  write(owner: SettingsOwner, value: Record<string, unknown>): Promise<void>;
  /** Encrypt for a row written elsewhere (an insert transaction). */
  seal(owner: SettingsOwner, value: Record<string, unknown>): SealedSecrets;
}

/** Create a {@link SecretsVault} over the catalog port. */
export function createSecretsVault(
  catalog: CatalogStorage,
  cipher: SecretsCipher,
  now: () => Date,
): SecretsVault {
  // The owner is bound as additional data: a ciphertext copied to another row fails to open.
  const context = (owner: SettingsOwner) => `${owner.kind}:${owner.id}`;
  const store = (owner: SettingsOwner, value: Record<string, unknown>) =>
    catalog.setSecrets(owner, cipher.seal(value, context(owner)), now().toISOString());
  return {
    async read(owner) {
      const sealed = await catalog.getSecrets(owner);
      if (!sealed) return {};
      const { value, stale } = cipher.open(sealed, context(owner));
      if (stale) await store(owner, value);
      return value;
    },
    write: store,
    seal: (owner, value) => cipher.seal(value, context(owner)),
  };
}
