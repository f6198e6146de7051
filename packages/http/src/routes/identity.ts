import { cyrnelError, type KeyRing } from '@cyrnel/core';
import type { Identity } from '@cyrnel/sdk/api';
import type { Caller } from '../app-env';

/**
 * What `GET /me` answers for `caller`: how it signed in, its role, and the stored key and the
 * principal it is, looked up in `keys` (never the key itself). A key deleted between the key check
 * and the look-up is refused as any revoked key is (401).
 */
export async function identityOf(caller: Caller, keys: KeyRing | undefined): Promise<Identity> {
  const { role } = caller;
  if (caller.bootstrap) return { signIn: 'bootstrap', role, key: null, principal: null };
  if (caller.oauthSubject !== undefined) {
    return { signIn: 'oauth', role, key: null, principal: await principalOf(caller.principalId, keys) };
  }
  if (caller.keyId === null) return { signIn: 'open', role, key: null, principal: null };
  const record = await keys?.get(caller.keyId);
  if (!record) throw cyrnelError('unauthorized', 'the API key was revoked');
  const { id, name, prefix } = record;
  return {
    signIn: 'key',
    role,
    key: { id, name, prefix },
    principal: await principalOf(record.principalId, keys),
  };
}

async function principalOf(id: string | null, keys: KeyRing | undefined): Promise<Identity['principal']> {
  if (id === null || !keys) return null;
  const { name, kind } = await keys.principals.get(id);
  return { id, name, kind };
}
