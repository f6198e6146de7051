import type { KeyPolicy, KeyRole, KeyScope } from '@cyrnel/sdk/api';
import type { PrincipalRow, PrincipalStorage } from './principal-storage';

/** An API key as stored: the SHA-256 of the key, never the key. */
export interface KeyRow {
  readonly id: string;
  readonly name: string;
  /** The principal the key belongs to (it exists: the storage refuses a key naming another). */
  readonly principalId: string;
  readonly role: KeyRole;
  /** Hex SHA-256 of the whole key. */
  readonly hash: string;
  /** The key's first characters, for telling keys apart in lists. */
  readonly prefix: string;
  /** ISO timestamp. */
  readonly createdAt: string;
  /** ISO timestamp, or null when never used. */
  readonly lastUsedAt: string | null;
  /** What the key may call at all; null: every tool. */
  readonly scope: KeyScope | null;
  /** How its calls differ from the policies; null: they follow them. */
  readonly policy: KeyPolicy | null;
}

/** What {@link KeyStorage.delete} did: the key went, was not there, or is the last admin key. */
export type KeyDeletion = 'deleted' | 'not_found' | 'last_admin';

/** Options of {@link KeyStorage.delete}. */
export interface KeyDeleteOptions {
  /**
   * Refuse (`'last_admin'`) to delete the only stored admin key. The check and the deletion are
   * one step for every writer of the database: of two hosts deleting the last two admin keys at
   * once, one is refused.
   */
  readonly keepAnAdmin?: boolean;
}

/** A page of {@link KeyStorage.list}, oldest first: `after` is the last row of the previous page. */
export interface KeyStorageQuery {
  readonly after?: { readonly createdAt: string; readonly id: string };
  readonly limit: number;
}

/**
 * The storage port of the key ring. The core declares it so that it never depends on a database
 * library; `@cyrnel/store` implements it with Kysely. It holds the principals too (see
 * {@link PrincipalStorage} for why).
 */
export interface KeyStorage extends PrincipalStorage {
  /**
   * Insert a key (its id and hash are unique; its principal must exist). With `principal`, that
   * principal is inserted first in the same transaction: both rows are written, or neither.
   */
  insert(row: KeyRow, principal?: PrincipalRow): Promise<void>;
  /** The key whose hash is `hash`, or undefined. */
  findByHash(hash: string): Promise<KeyRow | undefined>;
  /** The key with this id, or undefined. */
  get(id: string): Promise<KeyRow | undefined>;
  /** A page of keys ordered by creation time, then id. */
  list(query: KeyStorageQuery): Promise<KeyRow[]>;
  /** How many keys are stored (of role `role` only, when given). */
  count(filter?: { readonly role?: KeyRole }): Promise<number>;
  /** Record a use of the key. */
  touch(id: string, at: string): Promise<void>;
  /** Delete a key: `'not_found'` when unknown, `'last_admin'` when `keepAnAdmin` refuses it. */
  delete(id: string, options?: KeyDeleteOptions): Promise<KeyDeletion>;
}
