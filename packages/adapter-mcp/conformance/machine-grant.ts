import type { MachineGrant } from '../src/oauth/machine';

/** The grant without a person a scenario of the suite's extensions wants, from its context. */
export function machineGrantOf(scenario: string, context: Record<string, string>): MachineGrant | undefined {
  const need = (name: string): string => {
    const value = context[name];
    if (typeof value !== 'string') throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${name}`);
    return value;
  };
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
