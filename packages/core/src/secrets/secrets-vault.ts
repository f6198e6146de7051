import type { CatalogStorage, SettingsOwner } from '../catalog/catalog-storage';
import type { Redactor } from './redactor';
import type { SealedSecrets, SecretsCipher } from './secrets-cipher';

/** Reads and writes encrypted secrets, re-encrypting records found under a previous key. */
export interface SecretsVault {
  /** The decrypted secrets (empty object when none were stored). */
  read(owner: SettingsOwner): Promise<Record<string, unknown>>;
  write(owner: SettingsOwner, value: Record<string, unknown>): Promise<void>;
  /** Encrypt for a row written elsewhere (an insert transaction). */
  seal(owner: SettingsOwner, value: Record<string, unknown>): SealedSecrets;
  /** Secrets the host holds in plaintext before they are stored (an install request's). */
  hold(owner: SettingsOwner, value: Record<string, unknown>): void;
  /**
   * Open secrets sealed under `context` (a connection's: the row is written by its caller);
   * `stale` when sealed with a previous key (the caller seals them again).
   */
  openAs(context: string, sealed: SealedSecrets): { value: Record<string, unknown>; stale: boolean };
  /** Seal secrets under `context` for a row its caller writes. */
  sealAs(context: string, value: Record<string, unknown>): SealedSecrets;
}

/**
 * Create a {@link SecretsVault} over the catalog port. Every value it decrypts, encrypts or holds
 * is remembered by `redactor` as its owner's, so no error, log line or event shows it.
 */
export function createSecretsVault(
  catalog: CatalogStorage,
  cipher: SecretsCipher,
  now: () => Date,
  redactor?: Redactor,
): SecretsVault {
  // The owner is bound as additional data: a ciphertext copied to another row fails to open.
  const context = (owner: SettingsOwner) => `${owner.kind}:${owner.id}`;
  const known = (owner: SettingsOwner, value: Record<string, unknown>) =>
    redactor?.remember(context(owner), value);
  const store = (owner: SettingsOwner, value: Record<string, unknown>) => {
    known(owner, value);
    return catalog.setSecrets(owner, cipher.seal(value, context(owner)), now().toISOString());
  };
  return {
    async read(owner) {
      const sealed = await catalog.getSecrets(owner);
      if (!sealed) return {};
      const { value, stale } = cipher.open(sealed, context(owner));
      known(owner, value);
      if (stale) await store(owner, value);
      return value;
    },
    write: store,
    seal: (owner, value) => {
      known(owner, value);
      return cipher.seal(value, context(owner));
    },
    hold: known,
    openAs(contextText, sealed) {
      const opened = cipher.open(sealed, contextText);
      redactor?.remember(contextText, opened.value);
      return opened;
    },
    sealAs(contextText, value) {
      redactor?.remember(contextText, value);
      return cipher.seal(value, contextText);
    },
  };
}
