import type { PrincipalKind } from '@cyrnel/sdk/api';

/** A principal as stored: who API keys belong to. */
export interface PrincipalRow {
  readonly id: string;
  readonly name: string;
  readonly kind: PrincipalKind;
  /** ISO timestamp. */
  readonly createdAt: string;
  /**
   * The OAuth identity this principal is, when it was made by signing in with a token of a
   * trusted authorization server: `<issuer>#<sub>`. Unique among principals; absent otherwise.
   */
  readonly externalSubject?: string;
}

/** A principal as read back: with how many keys belong to it. */
export interface PrincipalListRow extends PrincipalRow {
  readonly keyCount: number;
}

/** A page of {@link PrincipalStorage.listPrincipals}, oldest first: `after` is the last row of the previous page. */
export interface PrincipalStorageQuery {
  readonly after?: { readonly createdAt: string; readonly id: string };
  readonly limit: number;
}

/** What {@link PrincipalStorage.deletePrincipal} did. */
export type PrincipalDeletion = 'deleted' | 'not_found' | 'has_keys';

/**
 * The principals half of the key ring's storage. It is part of `KeyStorage` (which extends it)
 * rather than a port of its own because principals and keys are one set of rows: a key made
 * without a principal is written with its new principal at once, a principal is deleted only when
 * no key points at it, and `keyCount` counts keys — each of these is one transaction (or one
 * statement) over both tables, which two separate ports could not promise.
 */
export interface PrincipalStorage {
  /** Insert a principal (its id is unique, and so is its `externalSubject` when it has one). */
  insertPrincipal(row: PrincipalRow): Promise<void>;
  /** The principal with this id, or undefined. */
  getPrincipal(id: string): Promise<PrincipalListRow | undefined>;
  /** The principal whose `externalSubject` is `subject`, or undefined. */
  findPrincipalBySubject(subject: string): Promise<PrincipalListRow | undefined>;
  /** A page of principals ordered by creation time, then id. */
  listPrincipals(query: PrincipalStorageQuery): Promise<PrincipalListRow[]>;
  /** Delete a principal unless a key belongs to it (checked in the same write). */
  deletePrincipal(id: string): Promise<PrincipalDeletion>;
}
