import type { PageQuery } from './lists';
import type { KeyPolicy, KeyScope } from './policies';

/**
 * Every role an API key can have: `admin` may use every route; `agent` only running processes and
 * reading tools; `approver` what an agent may, plus reading and deciding approvals and plans.
 */
export const KEY_ROLES = ['admin', 'agent', 'approver'] as const;

/** The role of an API key. */
export type KeyRole = (typeof KEY_ROLES)[number];

/** An API key as `GET /keys` lists it: never the key itself nor its hash. */
export interface KeyRecord {
  /** Key id, e.g. `3f9c2a1b0d4e5f60`; processes created with the key carry it as `keyId`. */
  id: string;
  /** Operator's label. */
  name: string;
  /** The principal (person or automation) the key belongs to. */
  principalId: string;
  /** What the key may do. */
  role: KeyRole;
  /** The key's first characters (`cyk_` and six more), to tell keys apart. */
  prefix: string;
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp of the last authenticated request (updated at most once a minute), or null. */
  lastUsedAt: string | null;
  /** What the key may call at all; null: every tool. */
  scope: KeyScope | null;
  /** How its calls differ from the policies; null: they follow them. */
  policy: KeyPolicy | null;
}

/** `POST /keys`. */
export interface CreateKeyRequest {
  /** Label, 1 to 100 characters. */
  name: string;
  /** `admin`, `agent` or `approver`. */
  role: KeyRole;
  /** What the key may call at all (unknown services or tools are refused, 400). */
  scope?: KeyScope | null;
  /** How its calls differ from the policies. */
  policy?: KeyPolicy | null;
  /**
   * The id of an existing principal the key belongs to (an unknown one is refused, 400). Absent:
   * the key gets a principal of its own, named after the key, an `automation` for an `agent` key
   * and a `person` otherwise.
   */
  principal?: string;
}

/** `POST /keys` → 201: the record plus the key, shown this once (only its hash is stored). */
export interface CreatedKey extends KeyRecord {
  /** The secret to send as `Authorization: Bearer <key>`: `cyk_` and 43 base64url characters. */
  key: string;
}

/** Paging of `GET /keys` (oldest first). */
export type KeyListQuery = PageQuery;
