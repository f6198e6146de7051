import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretsCipher, secretsKeyId } from './secrets-cipher';

describe('createSecretsCipher', () => {
  it('round-trips with a fresh IV each time and binds the context', () => {
    const key = randomBytes(32);
    const cipher = createSecretsCipher({ key: key.toString('base64') });
    const a = cipher.seal({ token: 'secret-value' }, 'service:x');
    const b = cipher.seal({ token: 'secret-value' }, 'service:x');
    expect(a.iv).not.toBe(b.iv);
    expect(Buffer.from(a.iv, 'base64')).toHaveLength(12);
    expect(a.keyId).toBe(secretsKeyId(key));
    expect(JSON.stringify(a)).not.toContain('secret-value');
    expect(cipher.open(a, 'service:x')).toEqual({ value: { token: 'secret-value' }, stale: false });
    expect(() => cipher.open(a, 'service:y')).toThrow('cannot be decrypted');
    expect(() => cipher.open({ ...a, tag: b.tag }, 'service:x')).toThrow('cannot be decrypted');
  });

  it('opens records of previous keys and marks them stale', () => {
    const old = randomBytes(32);
    const sealed = createSecretsCipher({ key: old }).seal({ a: 1 }, 'module:m');
    const rotated = createSecretsCipher({ key: randomBytes(32), previousKeys: [old] });
    expect(rotated.open(sealed, 'module:m')).toEqual({ value: { a: 1 }, stale: true });
    expect(() => createSecretsCipher({ key: randomBytes(32) }).open(sealed, 'module:m')).toThrow(
      'unknown key',
    );
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => createSecretsCipher({ key: randomBytes(16) })).toThrow('32 bytes');
    expect(() => createSecretsCipher({ key: '' })).toThrow('32 bytes');
  });
});
