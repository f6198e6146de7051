import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { cyrnelError } from '../errors';

/** Secrets as stored: AES-256-GCM ciphertext with its IV, tag and the id of the key (all base64 but keyId). */
export interface SealedSecrets {
  readonly keyId: string;
  readonly iv: string;
  readonly tag: string;
  readonly ciphertext: string;
}

/** Keys of {@link createSecretsCipher}: raw 32-byte keys or their base64. */
export interface SecretsCipherOptions {
  /** Encrypts every write. */
  readonly key: Uint8Array | string;
  /** Still decrypt; records read with them are re-encrypted with `key`. */
  readonly previousKeys?: readonly (Uint8Array | string)[];
}

/** Encrypts and decrypts secrets objects. */
export interface SecretsCipher {
  /** Id of the current key (a hash prefix; reveals nothing about the key). */
  readonly keyId: string;
  /** Encrypt `value` with a fresh 12-byte IV; `context` is bound as additional data. */
  seal(value: Record<string, unknown>, context: string): SealedSecrets;
  /** Decrypt; `stale` says the record used a previous key and should be re-sealed. */
  open(sealed: SealedSecrets, context: string): { value: Record<string, unknown>; stale: boolean };
}

/** Decode a base64 secrets key, requiring exactly 32 bytes. */
export function decodeSecretsKey(key: Uint8Array | string, field = 'secretsKey'): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key.trim(), 'base64') : Buffer.from(key);
  if (bytes.length !== 32) {
    throw cyrnelError('invalid_request', `${field} must be 32 bytes (base64-encoded)`, {
      details: [{ path: field, message: 'must be base64 of 32 bytes' }],
    });
  }
  return bytes;
}

/** The id stored with ciphertexts: first 16 hex digits of SHA-256 over a label and the key. */
export function secretsKeyId(key: Uint8Array): string {
  return createHash('sha256').update('cyrnel-secrets-key-id:').update(key).digest('hex').slice(0, 16);
}

/**
 * Create the AES-256-GCM cipher of stored secrets: a fresh 12-byte IV per write, the auth tag and the
 * key id stored beside the ciphertext; previous keys decrypt during rotation.
 *
 * @example
 * ```ts
 * const cipher = createSecretsCipher({ key: randomBytes(32) });
 * const sealed = cipher.seal({ token: 't' }, 'service:github');
 * cipher.open(sealed, 'service:github').value; // { token: 't' }
 * ```
 */
export function createSecretsCipher(options: SecretsCipherOptions): SecretsCipher {
  const current = decodeSecretsKey(options.key);
  const keyId = secretsKeyId(current);
  const keys = new Map<string, Buffer>([[keyId, current]]);
  (options.previousKeys ?? []).forEach((key, i) => {
    const bytes = decodeSecretsKey(key, `previousSecretsKeys[${i}]`);
    const id = secretsKeyId(bytes);
    if (!keys.has(id)) keys.set(id, bytes);
  });
  return {
    keyId,
    seal(value, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return {
        keyId,
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        ciphertext: ciphertext.toString('base64'),
      };
    },
    open(sealed, context) {
      const key = keys.get(sealed.keyId);
      if (!key) {
        throw cyrnelError(
          'internal',
          `secrets of ${context} were encrypted with an unknown key (id ${sealed.keyId}); configure it as a previous key`,
        );
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
        const plain = Buffer.concat([
          decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
          decipher.final(),
        ]).toString('utf8');
        return { value: JSON.parse(plain) as Record<string, unknown>, stale: sealed.keyId !== keyId };
      } catch (error) {
        // Never include the plaintext or key material: only say that the record is unreadable.
        throw cyrnelError('internal', `secrets of ${context} cannot be decrypted (tampered or wrong key)`, {
          cause: error instanceof Error ? new Error(error.message) : undefined,
        });
      }
    },
  };
}
