import type { JSONSchema } from '../json-schema';
import { KEY_ROLES, type KeyRole } from './keys';
import { PRINCIPAL_KINDS, type PrincipalKind } from './principals';

/**
 * How the caller of `GET /me` was let in: with a stored API key (`key`), with the server's own
 * admin key given at start and never stored (`bootstrap`), with nothing because the server has no
 * key at all and every request is an admin's (`open`), or with an OAuth access token where the
 * server takes them (`oauth`).
 */
export const SIGN_INS = ['key', 'bootstrap', 'open', 'oauth'] as const;

/** How a caller was let in: see {@link SIGN_INS}. */
export type SignIn = (typeof SIGN_INS)[number];

/**
 * `GET /me`: who the caller is, as the server sees it. Never the key itself, nor its hash.
 *
 * @example
 * ```ts
 * const me = await client.me();
 * if (me.role === 'agent') console.log(`signed in with ${me.key?.name} (${me.key?.prefix}…)`);
 * ```
 */
export interface Identity {
  /** How the caller was let in. */
  signIn: SignIn;
  /** What the caller may do (`admin` for the bootstrap key and on a server without keys). */
  role: KeyRole;
  /** The stored key it signed in with; null for any other sign-in. */
  key: {
    /** Key id, as `GET /keys` lists it and processes carry it as `keyId`. */
    id: string;
    /** Operator's label. */
    name: string;
    /** The key's first characters (`cyk_` and six more). */
    prefix: string;
  } | null;
  /** Whom it acts for: the key's principal, or the token's; null for the bootstrap key and an open server. */
  principal: {
    id: string;
    name: string;
    kind: PrincipalKind;
  } | null;
}

const nullableObject = (properties: Record<string, JSONSchema>): JSONSchema => ({
  oneOf: [{ type: 'object', required: Object.keys(properties), properties }, { type: 'null' }],
});

/** The JSON Schema of {@link Identity}, the `Identity` of the record schemas. */
export const IDENTITY_SCHEMA: JSONSchema = {
  type: 'object',
  required: ['signIn', 'role', 'key', 'principal'],
  properties: {
    signIn: { enum: [...SIGN_INS] },
    role: { enum: [...KEY_ROLES] },
    key: nullableObject({ id: { type: 'string' }, name: { type: 'string' }, prefix: { type: 'string' } }),
    principal: nullableObject({
      id: { type: 'string' },
      name: { type: 'string' },
      kind: { enum: [...PRINCIPAL_KINDS] },
    }),
  },
};
