import type { CatalogStorage } from './catalog-storage';
import type { SealedSecrets, SecretsCipher } from './secrets-cipher';

/** Whose secrets: a module's or a service's. */
export type SecretsOwner = 'module' | 'service';

/** Reads and writes encrypted secrets, re-encrypting records found under a previous key. */
export interface SecretsVault {
  /** The decrypted secrets (empty object when none were stored). */
  read(owner: SecretsOwner, id: string): Promise<Record<string, unknown>>;
  write(owner: SecretsOwner, id: string, value: Record<string, unknown>): Promise<void>;
  /** Encrypt for a row written elsewhere (an insert transaction). */
  seal(owner: SecretsOwner, id: string, value: Record<string, unknown>): SealedSecrets;
}

/** Create a {@link SecretsVault} over the catalog port. */
export function createSecretsVault(
  catalog: CatalogStorage,
  cipher: SecretsCipher,
  now: () => Date,
): SecretsVault {
  // The owner and id are bound as additional data: a ciphertext copied to another row fails to open.
  const context = (owner: SecretsOwner, id: string) => `${owner}:${id}`;
  const store = (owner: SecretsOwner, id: string, value: Record<string, unknown>) => {
    const sealed = cipher.seal(value, context(owner, id));
    const at = now().toISOString();
    return owner === 'module'
      ? catalog.setModuleSecrets(id, sealed, at)
      : catalog.setServiceSecrets(id, sealed, at);
  };
  return {
    async read(owner, id) {
      const sealed =
        owner === 'module' ? await catalog.getModuleSecrets(id) : await catalog.getServiceSecrets(id);
      if (!sealed) return {};
      const { value, stale } = cipher.open(sealed, context(owner, id));
      if (stale) await store(owner, id, value);
      return value;
    },
    write: store,
    seal: (owner, id, value) => cipher.seal(value, context(owner, id)),
  };
}
