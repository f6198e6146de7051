import type { PageQuery } from './lists';

/**
 * What a principal is: a `person` (someone who holds keys, e.g. on a laptop and a phone) or an
 * `automation` (a program: a CI job, an agent).
 */
export const PRINCIPAL_KINDS = ['person', 'automation'] as const;

/** The kind of a principal. */
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

/**
 * Who an API key belongs to: every key has exactly one principal, a principal any number of keys.
 * Roles stay per key (one person may hold an admin key and an agent key).
 */
export interface PrincipalRecord {
  /** Principal id, e.g. `9a0c2e4f6b8d1a3c`; keys carry it as `principalId`. */
  id: string;
  /** Operator's label. */
  name: string;
  /** `person` or `automation`. */
  kind: PrincipalKind;
  /** ISO timestamp. */
  createdAt: string;
  /** How many keys belong to it now. */
  keyCount: number;
}

/** `POST /principals`. */
export interface CreatePrincipalRequest {
  /** Label, 1 to 100 characters. */
  name: string;
  /** `person` (the default) or `automation`. */
  kind?: PrincipalKind;
}

/** Paging of `GET /principals` (oldest first). */
export type PrincipalListQuery = PageQuery;
