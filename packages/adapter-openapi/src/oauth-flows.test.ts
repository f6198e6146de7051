import { describe, expect, it } from 'vitest';
import { generateDefinition } from './generate-definition';
import type { OAuthSchemePlan } from './oauth-flows';

const info = { title: 'T', version: '1' };
const ok = { '200': { description: 'ok' } };
const oauthOf = (doc: unknown) =>
  (generateDefinition(JSON.stringify(doc)).adapterDomain as { oauth?: Record<string, OAuthSchemePlan> })
    .oauth;

describe('the OAuth flows of a document (adapterDomain.oauth)', () => {
  it('reads oauth2 flows of OpenAPI 3.0, with the scopes its operations ask for', () => {
    const oauth = oauthOf({
      openapi: '3.0.3',
      info,
      servers: [{ url: 'https://api.example.com/v1' }],
      security: [{ oauth: ['read'] }],
      components: {
        securitySchemes: {
          oauth: {
            type: 'oauth2',
            flows: {
              authorizationCode: {
                authorizationUrl: 'https://login.example.com/authorize',
                tokenUrl: 'https://login.example.com/token',
                refreshUrl: 'https://login.example.com/refresh',
                scopes: { read: 'Read things', write: 'Write things' },
              },
              clientCredentials: { tokenUrl: 'https://login.example.com/token', scopes: { admin: 'All' } },
              implicit: { authorizationUrl: 'https://login.example.com/authorize', scopes: {} },
              password: { tokenUrl: 'https://login.example.com/token', scopes: {} },
            },
          },
          key: { type: 'apiKey', in: 'header', name: 'X-Key' },
        },
      },
      paths: {
        '/things': {
          get: { responses: ok },
          post: { security: [{ oauth: ['write', 'read'] }, { key: [] }], responses: ok },
        },
      },
    });
    expect(oauth).toEqual({
      oauth: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://login.example.com/authorize',
            tokenUrl: 'https://login.example.com/token',
            refreshUrl: 'https://login.example.com/refresh',
            scopes: { read: 'Read things', write: 'Write things' },
          },
          clientCredentials: { tokenUrl: 'https://login.example.com/token', scopes: { admin: 'All' } },
        },
        requiredScopes: ['read', 'write'],
      },
    });
  });

  it('reads OpenAPI 3.1 oauth2 and openIdConnect schemes, relative URLs against the server, $refs followed', () => {
    const oauth = oauthOf({
      openapi: '3.1.0',
      info,
      servers: [{ url: 'https://api.example.com/v2/' }],
      components: {
        securitySchemes: {
          machine: { $ref: '#/components/securitySchemes/shared' },
          shared: {
            type: 'oauth2',
            flows: { clientCredentials: { tokenUrl: 'oauth/token', scopes: {} } },
          },
          people: {
            type: 'openIdConnect',
            openIdConnectUrl: 'https://id.example.com/.well-known/openid-configuration',
          },
        },
      },
      paths: { '/me': { get: { security: [{ people: ['openid', 'profile'] }], responses: ok } } },
    });
    expect(oauth?.machine).toEqual({
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: 'https://api.example.com/v2/oauth/token', scopes: {} } },
      requiredScopes: [],
    });
    expect(oauth?.shared).toEqual(oauth?.machine);
    expect(oauth?.people).toEqual({
      type: 'openIdConnect',
      openIdConnectUrl: 'https://id.example.com/.well-known/openid-configuration',
      flows: {},
      requiredScopes: ['openid', 'profile'],
    });
  });

  it('reads Swagger 2.0 securityDefinitions: accessCode and application, not implicit or password', () => {
    const oauth = oauthOf({
      swagger: '2.0',
      info,
      host: 'api.example.com',
      securityDefinitions: {
        code: {
          type: 'oauth2',
          flow: 'accessCode',
          authorizationUrl: 'https://login.example.com/auth',
          tokenUrl: 'https://login.example.com/token',
          scopes: { 'repo:read': 'Read repositories' },
        },
        app: { type: 'oauth2', flow: 'application', tokenUrl: 'https://login.example.com/token', scopes: {} },
        old: {
          type: 'oauth2',
          flow: 'implicit',
          authorizationUrl: 'https://login.example.com/auth',
          scopes: {},
        },
      },
      paths: { '/repos': { get: { security: [{ code: ['repo:read'] }], responses: ok } } },
    });
    expect(oauth).toEqual({
      code: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://login.example.com/auth',
            tokenUrl: 'https://login.example.com/token',
            scopes: { 'repo:read': 'Read repositories' },
          },
        },
        requiredScopes: ['repo:read'],
      },
      app: {
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: 'https://login.example.com/token', scopes: {} } },
        requiredScopes: [],
      },
      old: { type: 'oauth2', flows: {}, requiredScopes: [] },
    });
  });

  it('leaves the key out when no scheme is OAuth, and drops flows without their URLs', () => {
    expect(
      oauthOf({
        openapi: '3.0.3',
        info,
        components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
        paths: {},
      }),
    ).toBeUndefined();
    expect(oauthOf({ openapi: '3.0.3', info, paths: {} })).toBeUndefined();
    const broken = oauthOf({
      openapi: '3.0.3',
      info,
      components: {
        securitySchemes: {
          o: {
            type: 'oauth2',
            flows: {
              authorizationCode: { tokenUrl: 'https://login.example.com/token', scopes: {} },
              clientCredentials: { tokenUrl: 42 },
            },
          },
        },
      },
      paths: {},
    });
    expect(broken).toEqual({ o: { type: 'oauth2', flows: {}, requiredScopes: [] } });
  });

  it('keeps the scheme a secret the adapter sends as a bearer token', () => {
    const definition = generateDefinition(
      JSON.stringify({
        openapi: '3.1.0',
        info,
        components: {
          securitySchemes: {
            o: {
              type: 'oauth2',
              flows: { clientCredentials: { tokenUrl: 'https://x.example/token', scopes: {} } },
            },
          },
        },
        paths: {},
      }),
    );
    expect((definition.secretsSchema.properties as Record<string, unknown> | undefined)?.o).toMatchObject({
      type: 'string',
    });
    expect((definition.adapterDomain as { securitySchemes: unknown }).securitySchemes).toEqual({
      o: { type: 'oauth2' },
    });
  });
});
