import type { CyrnelClient } from '@cyrnel/client';
import type { KeyRole } from '@cyrnel/sdk/api';

/** Who the UI talks to the server as. */
export interface Session {
  readonly client: CyrnelClient;
  /** The role of the key signed in with (`admin` on a server without keys). */
  readonly role: KeyRole;
  /** The server has no key at all: every request is an admin's, there is nothing to sign in with. */
  readonly open: boolean;
}

/** The pages of the navigation: route, label and the least role that may open them. */
export const PAGES: readonly (readonly [route: string, label: string, needs: KeyRole])[] = [
  ['services', 'Services', 'admin'],
  ['tools', 'Tools', 'agent'],
  ['playground', 'Playground', 'agent'],
  ['processes', 'Processes', 'agent'],
  ['approvals', 'Approvals', 'approver'],
  ['modules', 'Modules', 'admin'],
  ['keys', 'Keys', 'admin'],
  ['dashboard', 'Dashboard', 'admin'],
  ['connect', 'Connect', 'agent'],
];

/** What each role may use: an approver is an agent that also decides approvals; an admin may do all. */
const GRANTS: Readonly<Record<KeyRole, readonly KeyRole[]>> = {
  agent: ['agent'],
  approver: ['agent', 'approver'],
  admin: ['agent', 'approver', 'admin'],
};

/** True when a key of `role` may do what needs `needs`. */
export function may(role: KeyRole, needs: KeyRole): boolean {
  return GRANTS[role].includes(needs);
}

/**
 * The role a route needs: its page's (`services` needs an admin key), but a service's connections
 * (`services/<id>/connections`) are any key's own and the shared ones.
 */
export function routeNeeds(route: readonly string[]): KeyRole {
  const [page, , sub] = route;
  if (page === 'services' && sub === 'connections') return 'agent';
  return PAGES.find(([path]) => path === page)?.[2] ?? 'agent';
}

/** The page a role starts at: the services for an admin, the tools for any other key. */
export function homeOf(role: KeyRole): string {
  return role === 'admin' ? 'services' : 'tools';
}

/**
 * Who `client` signs in as, asked of the server (`GET /me`, which any key may call): the key's
 * role, and whether the server is open (has no key at all, so every request is an admin's).
 */
export async function whoIs(client: CyrnelClient): Promise<Pick<Session, 'role' | 'open'>> {
  const { role, signIn } = await client.me();
  return { role, open: signIn === 'open' };
}
