import { randomBytes } from 'node:crypto';
import {
  CREATE_PRINCIPAL_BODY,
  type CreatePrincipalRequest,
  type KeyRole,
  type ListResponse,
  MAX_PRINCIPAL_NAME_LENGTH,
  PRINCIPAL_KINDS,
  type PrincipalKind,
  type PrincipalListQuery,
  type PrincipalRecord,
} from '@cyrnel/sdk/api';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import { type CyrnelError, cyrnelError } from '../errors';
import { validateBody } from '../validation/body-schema';
import { queryObject } from '../validation/input';
import type { PrincipalListRow, PrincipalRow, PrincipalStorage } from './principal-storage';

/** Who the API keys belong to: people and automations, each holding any number of keys. */
export interface Principals {
  /** Create a principal (kind `person` unless said otherwise). */
  create(request: CreatePrincipalRequest): Promise<PrincipalRecord>;
  /** A page of principals, oldest first, each with how many keys it holds. */
  list(query?: PrincipalListQuery): Promise<ListResponse<PrincipalRecord>>;
  /** The principal `id` (404 `principal_not_found` when unknown). */
  get(id: string): Promise<PrincipalRecord>;
  /** Delete a principal (404 when unknown, 409 `principal_has_keys` while keys belong to it). */
  delete(id: string): Promise<void>;
  /**
   * The principal an OAuth identity is (`subject`: `<issuer>#<sub>`), created on its first use as
   * a `person` named `name` (cut to the longest name allowed). Two first uses at once, on one host
   * or several, give the same principal: the subject is unique in the storage.
   */
  forSubject(input: { readonly subject: string; readonly name: string }): Promise<PrincipalRecord>;
}

function invalid(field: string, message: string): CyrnelError {
  return cyrnelError('invalid_request', `${field} ${message}`, { details: [{ path: field, message }] });
}

/** A new principal id: 8 random bytes in hex, like key ids. */
export const newPrincipalId = (): string => randomBytes(8).toString('hex');

/**
 * The principal a key made without one gets: named after the key, an `automation` for an agent key
 * (a program's) and a `person` for an admin or approver key (someone's).
 */
export function ownPrincipal(keyName: string, role: KeyRole, createdAt: string): PrincipalRow {
  return { id: newPrincipalId(), name: keyName, kind: role === 'agent' ? 'automation' : 'person', createdAt };
}

const toRecord = ({ id, name, kind, createdAt, keyCount }: PrincipalListRow): PrincipalRecord => ({
  id,
  name,
  kind,
  createdAt,
  keyCount,
});

/**
 * The principals over the key ring's storage (`createKeyRing` builds them as its `principals`).
 *
 * @example
 * ```ts
 * const principals = createPrincipals(createMemoryKeyStorage(), () => new Date());
 * const ada = await principals.create({ name: 'Ada' }); // kind 'person', keyCount 0
 * ```
 */
export function createPrincipals(storage: PrincipalStorage, now: () => Date): Principals {
  const get = async (id: string) => {
    const row = await storage.getPrincipal(id);
    if (!row) throw cyrnelError('principal_not_found', `principal ${id} not found`);
    return toRecord(row);
  };
  return {
    async create(request) {
      const body = validateBody<Record<keyof CreatePrincipalRequest, unknown>>(
        request,
        CREATE_PRINCIPAL_BODY,
      );
      const { name, kind = 'person' } = body;
      if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_PRINCIPAL_NAME_LENGTH) {
        throw invalid(
          'name',
          `must be a non-empty string of at most ${MAX_PRINCIPAL_NAME_LENGTH} characters`,
        );
      }
      if (!(PRINCIPAL_KINDS as readonly unknown[]).includes(kind)) {
        throw invalid('kind', `must be one of ${PRINCIPAL_KINDS.join(', ')}`);
      }
      const row: PrincipalRow = {
        id: newPrincipalId(),
        name,
        kind: kind as PrincipalKind,
        createdAt: now().toISOString(),
      };
      await storage.insertPrincipal(row);
      return { ...row, keyCount: 0 };
    },

    async list(query) {
      const { limit, cursor } = queryObject(query);
      const size = pageLimit(limit);
      let after: { createdAt: string; id: string } | undefined;
      if (cursor !== undefined) {
        const [createdAt = '', id = ''] = decodeCursor(cursor, 2);
        after = { createdAt, id };
      }
      const rows = await storage.listPrincipals({
        limit: size + 1,
        ...(after === undefined ? {} : { after }),
      });
      return toPage(rows, size, (row) => [row.createdAt, row.id], toRecord);
    },

    get,

    async forSubject({ subject, name }) {
      const found = await storage.findPrincipalBySubject(subject);
      if (found) return toRecord(found);
      const trimmed =
        name.trim().slice(0, MAX_PRINCIPAL_NAME_LENGTH) || subject.slice(0, MAX_PRINCIPAL_NAME_LENGTH);
      const row: PrincipalRow = {
        id: newPrincipalId(),
        name: trimmed,
        kind: 'person',
        createdAt: now().toISOString(),
        externalSubject: subject,
      };
      try {
        await storage.insertPrincipal(row);
      } catch (error) {
        // Another request made it first: the subject is unique, so it is that one.
        const made = await storage.findPrincipalBySubject(subject);
        if (made) return toRecord(made);
        throw error;
      }
      return toRecord({ ...row, keyCount: 0 });
    },

    async delete(id) {
      const outcome = await storage.deletePrincipal(id);
      if (outcome === 'not_found') throw cyrnelError('principal_not_found', `principal ${id} not found`);
      if (outcome === 'has_keys') {
        throw cyrnelError('principal_has_keys', `principal ${id} still has keys: delete them first`);
      }
    },
  };
}
