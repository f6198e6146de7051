import type { JSONSchema } from '../json-schema';
import { CONNECTION_STATUSES, OAUTH_FLOWS } from './connections';
import { KEY_ROLES } from './keys';
import { PRINCIPAL_KINDS } from './principals';
import { nullable, object, policy, policyMap, ref } from './schema-builders';

type Json = JSONSchema;

/**
 * The record schemas of who calls and with whose credentials (`KeyRecord`, `CreatedKey`,
 * `PrincipalRecord`, `ConnectionRecord`, `AuthorizationStarted`), part of `RECORD_SCHEMAS`.
 */
export const ACCESS_SCHEMAS: Readonly<Record<string, Json>> = {
  KeyRecord: object(
    ['id', 'name', 'principalId', 'role', 'prefix', 'createdAt', 'lastUsedAt', 'scope', 'policy'],
    {
      id: { type: 'string' },
      name: { type: 'string' },
      principalId: { type: 'string' },
      role: { enum: [...KEY_ROLES] },
      prefix: { type: 'string' },
      createdAt: { type: 'string' },
      lastUsedAt: nullable('string'),
      scope: {
        oneOf: [
          object([], {
            services: { type: 'array', items: { type: 'string' } },
            tools: { type: 'array', items: { type: 'string' } },
          }),
          { type: 'null' },
        ],
      },
      policy: {
        oneOf: [
          object([], {
            default: policy,
            services: policyMap,
            tools: policyMap,
          }),
          { type: 'null' },
        ],
      },
    },
  ),
  CreatedKey: { allOf: [ref('KeyRecord'), object(['key'], { key: { type: 'string' } })] },
  PrincipalRecord: object(['id', 'name', 'kind', 'createdAt', 'keyCount'], {
    id: { type: 'string' },
    name: { type: 'string' },
    kind: { enum: [...PRINCIPAL_KINDS] },
    createdAt: { type: 'string' },
    keyCount: { type: 'integer', minimum: 0 },
  }),
  ConnectionRecord: object(
    ['serviceId', 'name', 'owner', 'status', 'statusMessage', 'secrets', 'oauth', 'createdAt', 'updatedAt'],
    {
      serviceId: { type: 'string' },
      name: { type: 'string' },
      owner: nullable('string'),
      status: { enum: [...CONNECTION_STATUSES] },
      statusMessage: nullable('string'),
      secrets: { type: 'array', items: { type: 'string' } },
      oauth: {
        oneOf: [
          object(['scheme', 'flow', 'clientId', 'pending', 'expiresAt', 'scopes'], {
            scheme: { type: 'string' },
            flow: { enum: [...OAUTH_FLOWS] },
            clientId: { type: 'string' },
            pending: { type: 'boolean' },
            expiresAt: nullable('string'),
            scopes: { type: 'array', items: { type: 'string' } },
          }),
          { type: 'null' },
        ],
      },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
    },
  ),
  AuthorizationStarted: object(['authorizationUrl', 'expiresAt'], {
    authorizationUrl: { type: 'string' },
    expiresAt: { type: 'string' },
  }),
};
