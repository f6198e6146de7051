import { AUTHORIZE_CONNECTION_BODY, CREATE_CONNECTION_BODY, UPDATE_CONNECTION_BODY } from '../body-fields';
import type {
  AuthorizeConnectionRequest,
  AuthorizeConnectionResponse,
  ConnectionRecord,
  CreateConnectionRequest,
  OAuthCallbackQuery,
  UpdateConnectionRequest,
} from '../connections';
import type { ListResponse } from '../lists';
import { page, ref } from '../record-schemas';
import {
  CHECKED_ID,
  defineRoute,
  jsonAnswer,
  noContent,
  objectBody,
  PLAIN_ID,
  queryParams,
  textAnswer,
} from '../route';
import { SETTINGS_REASONS } from '../route-reasons';

const params = { serviceId: CHECKED_ID };
const named = { serviceId: CHECKED_ID, name: PLAIN_ID };

/**
 * `/services/:serviceId/connections`: a service's named credentials. Any key may use these
 * routes; an admin key sees and changes every connection, any other key only its principal's own
 * (and sees the shared ones).
 */
export const CONNECTION_ROUTES = {
  list: defineRoute({
    method: 'GET',
    path: '/services/:serviceId/connections',
    role: 'agent',
    summary: "List a service's connections (an admin key sees all; others their own and the shared ones)",
    params,
    answer: jsonAnswer<ListResponse<ConnectionRecord>>(page('ConnectionRecord')),
    reasons: ['service_not_found'],
  }),
  create: defineRoute({
    method: 'POST',
    path: '/services/:serviceId/connections',
    role: 'agent',
    summary: 'Add a named connection (its secrets checked against the secrets schema, stored encrypted)',
    params,
    body: objectBody<CreateConnectionRequest>(CREATE_CONNECTION_BODY),
    answer: jsonAnswer<ConnectionRecord>(ref('ConnectionRecord'), 201),
    reasons: ['service_not_found', 'connection_exists', 'forbidden', ...SETTINGS_REASONS],
  }),
  get: defineRoute({
    method: 'GET',
    path: '/services/:serviceId/connections/:name',
    role: 'agent',
    summary: 'Get a connection (which secrets are set, never their values)',
    params: named,
    answer: jsonAnswer<ConnectionRecord>(ref('ConnectionRecord')),
    reasons: ['service_not_found', 'connection_not_found'],
  }),
  update: defineRoute({
    method: 'PATCH',
    path: '/services/:serviceId/connections/:name',
    role: 'agent',
    summary: "Change a connection's owner (admin keys) or replace its secrets",
    params: named,
    body: objectBody<UpdateConnectionRequest>(UPDATE_CONNECTION_BODY),
    answer: jsonAnswer<ConnectionRecord>(ref('ConnectionRecord')),
    reasons: ['service_not_found', 'connection_not_found', 'forbidden', ...SETTINGS_REASONS],
  }),
  delete: defineRoute({
    method: 'DELETE',
    path: '/services/:serviceId/connections/:name',
    role: 'agent',
    summary: 'Delete a connection (runs that use it fail their next call)',
    params: named,
    answer: noContent(),
    reasons: ['service_not_found', 'connection_not_found'],
  }),
  authorize: defineRoute({
    method: 'POST',
    path: '/services/:serviceId/connections/:name/authorize',
    role: 'agent',
    summary:
      'Sign a connection in with OAuth: the authorization code flow answers the URL to send a browser to, client credentials the connection',
    params: named,
    body: objectBody<AuthorizeConnectionRequest>(AUTHORIZE_CONNECTION_BODY, { optional: true }),
    answer: jsonAnswer<AuthorizeConnectionResponse>({
      oneOf: [ref('AuthorizationStarted'), ref('ConnectionRecord')],
    }),
    reasons: [
      'service_not_found',
      'connection_not_found',
      'forbidden',
      'invalid_request',
      'outbound_refused',
      'upstream_failed',
      'upstream_unauthorized',
    ],
  }),
  callback: defineRoute({
    method: 'GET',
    path: '/oauth/callback',
    role: 'none',
    summary:
      "Where the authorization server sends the person's browser back: finishes the pending authorization its state names (no key needed)",
    params: {},
    query: queryParams<OAuthCallbackQuery>(
      {
        code: { type: 'string' },
        state: { type: 'string' },
        error: { type: 'string' },
        error_description: { type: 'string' },
        iss: { type: 'string' },
      },
      'ignored',
    ),
    answer: textAnswer(),
    reasons: ['oauth_state_invalid', 'outbound_refused', 'upstream_failed', 'upstream_unauthorized'],
  }),
};
