import { CREATE_KEY_BODY } from '../body-fields';
import type { CreatedKey, CreateKeyRequest, KeyListQuery, KeyRecord } from '../keys';
import type { ListResponse } from '../lists';
import { page, ref } from '../record-schemas';
import { defineRoute, jsonAnswer, noContent, objectBody, PAGE_QUERY, PLAIN_ID, queryParams } from '../route';

/** `/keys`: API keys with roles (mounted when the server stores keys). */
export const KEY_ROUTES = {
  create: defineRoute({
    method: 'POST',
    path: '/keys',
    role: 'admin',
    summary: 'Create an API key; the key is shown in this answer only',
    params: {},
    body: objectBody<CreateKeyRequest>(CREATE_KEY_BODY),
    answer: jsonAnswer<CreatedKey>(ref('CreatedKey'), 201),
    reasons: ['first_key_not_admin'],
  }),
  list: defineRoute({
    method: 'GET',
    path: '/keys',
    role: 'admin',
    summary: 'List API keys (never the keys)',
    params: {},
    query: queryParams<KeyListQuery>(PAGE_QUERY),
    answer: jsonAnswer<ListResponse<KeyRecord>>(page('KeyRecord')),
    reasons: [],
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/keys/:id',
    role: 'admin',
    summary: 'Revoke an API key',
    params: { id: PLAIN_ID },
    answer: noContent(),
    reasons: ['key_not_found', 'last_admin'],
  }),
};
