import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  CREATE_KEY_BODY,
  type CreatedKey,
  type CreateKeyRequest,
  KEY_ROLES,
  type KeyListQuery,
  type KeyPolicy,
  type KeyRecord,
  type KeyRole,
  type KeyScope,
  type ListResponse,
  MAX_KEY_NAME_LENGTH,
} from '@cyrnel/sdk/api';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import { type CyrnelError, cyrnelError } from '../errors';
import { keyPolicy, keyScope } from '../policies/policy-input';
import { validateBody } from '../validation/body-schema';
import { queryObject } from '../validation/input';
import type { KeyRow, KeyStorage } from './key-storage';
import type { PrincipalRow } from './principal-storage';
import { createPrincipals, ownPrincipal, type Principals } from './principals';

/** What a request authenticated with a stored key acts as. */
export interface AuthenticatedKey {
  readonly id: string;
  readonly name: string;
  readonly role: KeyRole;
  /** The principal the key belongs to. */
  readonly principalId: string;
}

/** What the policies need of a key: its scope and its policy overrides. */
export interface KeyRules {
  readonly scope: KeyScope | null;
  readonly policy: KeyPolicy | null;
}

/**
 * Options of {@link KeyRing.create} and {@link KeyRing.delete}: whether the stored keys must keep
 * an admin among them.
 */
export interface KeepAnAdminOptions {
  /**
   * Keep the server manageable through its stored keys: no key but an admin key while no admin key
   * is stored (409 `first_key_not_admin`), and never the deletion of the last admin key (409
   * `last_admin`, decided in one step with the deletion by the storage, so two hosts deleting the
   * last two at once cannot both succeed). The HTTP API asks for it unless the server has a
   * bootstrap admin key of its own. Default false.
   */
  readonly keepAnAdmin?: boolean;
}

/** Stored API keys: created, listed, deleted, and checked on each request. */
export interface KeyRing {
  /** Create a key; the answer is the only place the key itself ever appears. */
  create(request: CreateKeyRequest, options?: KeepAnAdminOptions): Promise<CreatedKey>;
  /** A page of keys, oldest first; never the key nor its hash. */
  list(query?: KeyListQuery): Promise<ListResponse<KeyRecord>>;
  /**
   * The key `id` as `list` gives it (never the key nor its hash), or undefined when unknown.
   *
   * @example
   * ```ts
   * const { name, prefix } = (await keys.get(caller.keyId)) ?? { name: '?', prefix: '?' };
   * ```
   */
  get(id: string): Promise<KeyRecord | undefined>;
  /** Delete a key (404 when unknown); requests with it fail from then on. */
  delete(id: string, options?: KeepAnAdminOptions): Promise<void>;
  /** The stored key `key` is, or undefined. */
  authenticate(key: string): Promise<AuthenticatedKey | undefined>;
  /** How many keys are stored. */
  count(): Promise<number>;
  /** The scope and policy of key `id` (undefined when unknown). */
  rules(id: string): Promise<KeyRules | undefined>;
  /** Who the keys belong to, over the same storage. */
  readonly principals: Principals;
}

/** Options of {@link createKeyRing}. */
export interface KeyRingOptions {
  readonly storage: KeyStorage;
  /** `lastUsedAt` is written at most this often per key. Default 60000. */
  readonly touchIntervalMs?: number;
  /** Clock, for tests. */
  readonly now?: () => Date;
  /**
   * Which of the services and qualified tools (`<service>.<tool>`) a key's scope or policy names do
   * not exist: a key is refused (400) when it names any. Absent: names are not checked.
   */
  readonly unknownTools?: (services: readonly string[], tools: readonly string[]) => Promise<string[]>;
}

/** What every key starts with, so a leaked one is recognisable (secret scanners, logs). */
export const KEY_PREFIX = 'cyk_';
const KEY_PATTERN = /^cyk_[A-Za-z0-9_-]{43}$/;

/**
 * Hex SHA-256 of an API key. A plain fast hash is enough: keys are 256 random bits, so there is
 * nothing to brute-force (a slow password hash only helps low-entropy secrets).
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function invalid(field: string, message: string): CyrnelError {
  return cyrnelError('invalid_request', `${field} ${message}`, { details: [{ path: field, message }] });
}

function toRecord(row: KeyRow): KeyRecord {
  const { id, name, principalId, role, prefix, createdAt, lastUsedAt, scope, policy } = row;
  return { id, name, principalId, role, prefix, createdAt, lastUsedAt, scope, policy };
}

/** Refuse a key whose scope or policy names a service or tool that does not exist. */
async function checkNames(
  scope: KeyScope | null,
  policy: KeyPolicy | null,
  unknownTools: KeyRingOptions['unknownTools'],
): Promise<void> {
  if (!unknownTools) return;
  const services = [...(scope?.services ?? []), ...Object.keys(policy?.services ?? {})];
  const tools = [...(scope?.tools ?? []), ...Object.keys(policy?.tools ?? {})];
  if (services.length === 0 && tools.length === 0) return;
  const unknown = await unknownTools([...new Set(services)], [...new Set(tools)]);
  if (unknown.length > 0) {
    throw cyrnelError(
      'invalid_request',
      `the key names services or tools that do not exist: ${unknown.slice(0, 20).join(', ')}`,
      {
        details: unknown.slice(0, 100).map((name) => ({ path: 'scope', message: `unknown ${name}` })),
      },
    );
  }
}

/**
 * The principal a new key belongs to: the existing one `principal` names (400 naming it when there
 * is none), or a new one of its own (written with the key).
 */
async function principalOf(
  storage: KeyStorage,
  principal: unknown,
  key: { name: string; role: KeyRole; createdAt: string },
): Promise<{ id: string; created?: PrincipalRow }> {
  if (principal === undefined) {
    const created = ownPrincipal(key.name, key.role, key.createdAt);
    return { id: created.id, created };
  }
  if (typeof principal !== 'string' || !(await storage.getPrincipal(principal))) {
    throw invalid('principal', `${JSON.stringify(principal)} is not the id of an existing principal`);
  }
  return { id: principal };
}

/**
 * Create the key ring over its storage port. Keys are `cyk_` plus 32 random bytes in base64url;
 * only their SHA-256 is stored.
 *
 * @example
 * ```ts
 * const keys = createKeyRing({ storage: store.keys });
 * await keys.create({ name: 'me', role: 'admin' }, { keepAnAdmin: true }); // the first: an admin
 * const { key } = await keys.create({ name: 'ci agent', role: 'agent' });
 * (await keys.authenticate(key))?.role; // 'agent'
 * const ada = await keys.principals.create({ name: 'Ada' });
 * await keys.create({ name: 'laptop', role: 'approver', principal: ada.id });
 * ```
 */
export function createKeyRing(options: KeyRingOptions): KeyRing {
  const { storage } = options;
  const now = options.now ?? (() => new Date());
  const touchIntervalMs = options.touchIntervalMs ?? 60_000;
  return {
    async create(request, createOptions) {
      const body = validateBody<Record<keyof CreateKeyRequest, unknown>>(request, CREATE_KEY_BODY);
      const { name, role } = body;
      if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_KEY_NAME_LENGTH) {
        throw invalid('name', `must be a non-empty string of at most ${MAX_KEY_NAME_LENGTH} characters`);
      }
      if (!(KEY_ROLES as readonly unknown[]).includes(role)) {
        throw invalid('role', `must be one of ${KEY_ROLES.join(', ')}`);
      }
      const scope = keyScope(body.scope);
      const policy = keyPolicy(body.policy);
      await checkNames(scope, policy, options.unknownTools);
      // Enough without a lock: admin keys only go through a deletion that keeps one.
      if (createOptions?.keepAnAdmin && role !== 'admin' && (await storage.count({ role: 'admin' })) === 0) {
        throw cyrnelError(
          'first_key_not_admin',
          `no admin key is stored yet: create an admin key first (role "admin"); a first ${String(role)} key would leave nobody able to manage this server`,
        );
      }
      const createdAt = now().toISOString();
      const principal = await principalOf(storage, body.principal, {
        name,
        role: role as KeyRole,
        createdAt,
      });
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const row: KeyRow = {
        id: randomBytes(8).toString('hex'),
        name,
        principalId: principal.id,
        role: role as KeyRole,
        hash: hashApiKey(key),
        prefix: key.slice(0, KEY_PREFIX.length + 6),
        createdAt,
        lastUsedAt: null,
        scope,
        policy,
      };
      try {
        await storage.insert(row, principal.created);
      } catch (error) {
        // The named principal was deleted since it was looked up: the same 400 as if it never was.
        if (!principal.created && !(await storage.getPrincipal(principal.id))) {
          throw invalid(
            'principal',
            `${JSON.stringify(principal.id)} is not the id of an existing principal`,
          );
        }
        throw error;
      }
      return { ...toRecord(row), key };
    },

    async list(query) {
      const { limit, cursor } = queryObject(query);
      const size = pageLimit(limit);
      let after: { createdAt: string; id: string } | undefined;
      if (cursor !== undefined) {
        const [createdAt = '', id = ''] = decodeCursor(cursor, 2);
        after = { createdAt, id };
      }
      const rows = await storage.list({ limit: size + 1, ...(after === undefined ? {} : { after }) });
      return toPage(rows, size, (row) => [row.createdAt, row.id], toRecord);
    },

    async delete(id, deleteOptions) {
      const outcome = await storage.delete(id, { keepAnAdmin: deleteOptions?.keepAnAdmin === true });
      if (outcome === 'not_found') throw cyrnelError('key_not_found', `key ${id} not found`);
      if (outcome === 'last_admin') {
        throw cyrnelError(
          'last_admin',
          `key ${id} is the last admin key: create another admin key before revoking it, or nobody could manage this server`,
        );
      }
    },

    async authenticate(key) {
      if (!KEY_PATTERN.test(key)) return undefined;
      const hash = hashApiKey(key);
      const row = await storage.findByHash(hash);
      // The lookup is by hash, so its timing says nothing about the stored keys; the comparison
      // is constant-time anyway so no path compares secret material byte by byte.
      if (!row || !timingSafeEqual(Buffer.from(row.hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
      const at = now();
      if (row.lastUsedAt === null || at.getTime() - Date.parse(row.lastUsedAt) >= touchIntervalMs) {
        await storage.touch(row.id, at.toISOString());
      }
      return { id: row.id, name: row.name, role: row.role, principalId: row.principalId };
    },

    count: () => storage.count(),

    async get(id) {
      const row = await storage.get(id);
      return row && toRecord(row);
    },

    async rules(id) {
      const row = await storage.get(id);
      return row && { scope: row.scope, policy: row.policy };
    },

    principals: createPrincipals(storage, now),
  };
}
