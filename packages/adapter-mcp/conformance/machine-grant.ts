import type { MachineGrant } from '../src/oauth/machine';

/** A string of the scenario's context, or a clear failure naming it. */
function contextValue(context: Record<string, string>, name: string): string {
  const value = context[name];
  if (typeof value !== 'string') throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${name}`);
  return value;
}

/** The grant without a person a scenario of the suite's extensions wants, from its context. */
export function machineGrantOf(scenario: string, context: Record<string, string>): MachineGrant | undefined {
  const need = (name: string) => contextValue(context, name);
  if (scenario === 'auth/client-credentials-basic')
    return { kind: 'client_secret', clientId: need('client_id'), clientSecret: need('client_secret') };
  if (scenario === 'auth/client-credentials-jwt')
    return {
      kind: 'private_key_jwt',
      clientId: need('client_id'),
      privateKeyPem: need('private_key_pem'),
      algorithm: context.signing_algorithm ?? 'ES256',
    };
  if (scenario === 'auth/cross-app-access-complete-flow')
    return {
      kind: 'cross_app_access',
      clientId: need('client_id'),
      clientSecret: need('client_secret'),
      idp: {
        tokenEndpoint: need('idp_token_endpoint'),
        clientId: need('idp_client_id'),
        idToken: need('idp_id_token'),
      },
    };
  return undefined;
}

/** The `oauth` block of an MCP service's definition, and the secrets its placeholders name. */
export interface ServiceOAuth {
  /** Written into the definition text: no credential, only `${secrets.NAME}` placeholders. */
  readonly oauth: Record<string, unknown>;
  /** The service's secrets, by placeholder name (the context's own names). */
  readonly secrets: Record<string, string>;
}

/**
 * What a scenario asks of a cyrnel server's MCP service: the client registered by hand, or the
 * grant without a person, with every credential of the context as a secret of the service.
 *
 * @example
 * ```ts
 * serviceOAuthOf('auth/pre-registration', { client_id: 'c', client_secret: 's' });
 * // { oauth: { clientId: '${secrets.client_id}', clientSecret: '${secrets.client_secret}' },
 * //   secrets: { client_id: 'c', client_secret: 's' } }
 * ```
 */
export function serviceOAuthOf(scenario: string, context: Record<string, string>): ServiceOAuth {
  const secrets: Record<string, string> = {};
  const secret = (name: string): string => {
    secrets[name] = contextValue(context, name);
    return `\${secrets.${name}}`;
  };
  const client = () => ({ clientId: secret('client_id'), clientSecret: secret('client_secret') });
  let oauth: Record<string, unknown> = {};
  if (scenario === 'auth/pre-registration') oauth = client();
  else if (scenario === 'auth/client-credentials-basic') oauth = { grant: 'client_credentials', ...client() };
  else if (scenario === 'auth/client-credentials-jwt')
    oauth = {
      grant: 'private_key_jwt',
      clientId: secret('client_id'),
      privateKey: secret('private_key_pem'),
      algorithm: context.signing_algorithm ?? 'ES256',
    };
  else if (scenario === 'auth/cross-app-access-complete-flow')
    oauth = {
      grant: 'cross_app_access',
      ...client(),
      idp: {
        tokenEndpoint: contextValue(context, 'idp_token_endpoint'),
        clientId: secret('idp_client_id'),
        idToken: secret('idp_id_token'),
      },
    };
  return { oauth, secrets };
}
