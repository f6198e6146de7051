import { CREATE_PRINCIPAL_BODY } from '../body-fields';
import type { ListResponse } from '../lists';
import type { CreatePrincipalRequest, PrincipalListQuery, PrincipalRecord } from '../principals';
import { page, ref } from '../record-schemas';
import { defineRoute, jsonAnswer, noContent, objectBody, PAGE_QUERY, PLAIN_ID, queryParams } from '../route';

/** `/principals`: who the API keys belong to, people and automations (mounted with `/keys`). */
export const PRINCIPAL_ROUTES = {
  create: defineRoute({
    method: 'POST',
    path: '/principals',
    role: 'admin',
    summary: 'Create a principal (a person or an automation) to give keys to',
    params: {},
    body: objectBody<CreatePrincipalRequest>(CREATE_PRINCIPAL_BODY),
    answer: jsonAnswer<PrincipalRecord>(ref('PrincipalRecord'), 201),
    reasons: [],
  }),
  list: defineRoute({
    method: 'GET',
    path: '/principals',
    role: 'admin',
    summary: 'List principals with how many keys each holds',
    params: {},
    query: queryParams<PrincipalListQuery>(PAGE_QUERY),
    answer: jsonAnswer<ListResponse<PrincipalRecord>>(page('PrincipalRecord')),
    reasons: [],
  }),
  get: defineRoute({
    method: 'GET',
    path: '/principals/:id',
    role: 'admin',
    summary: 'Get a principal',
    params: { id: PLAIN_ID },
    answer: jsonAnswer<PrincipalRecord>(ref('PrincipalRecord')),
    reasons: ['principal_not_found'],
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/principals/:id',
    role: 'admin',
    summary: 'Delete a principal that holds no keys',
    params: { id: PLAIN_ID },
    answer: noContent(),
    reasons: ['principal_not_found', 'principal_has_keys'],
  }),
};
