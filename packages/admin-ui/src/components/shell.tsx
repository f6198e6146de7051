import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { may, PAGES, type Session } from './access';

/**
 * The header line: the server's health, the API version, and for an admin the active environment
 * (only an admin key may list the modules); then who the UI is signed in as.
 */
function useServerStatus({ client, role }: Session): string {
  const [status, setStatus] = useState('');
  useEffect(() => {
    void (async () => {
      const health = await client.health().catch(() => undefined);
      const document = await client.openapi().catch(() => undefined);
      const environment =
        role === 'admin'
          ? await client.modules.list({ type: 'environment', limit: 100 }).then(
              (page) => page.items.find((module) => module.status === 'active')?.id ?? 'none',
              () => 'unknown',
            )
          : undefined;
      setStatus(
        `${health?.status === 'ok' ? 'healthy' : 'unreachable'} · API ${document?.info?.version ?? '?'}${
          environment === undefined ? '' : ` · environment ${environment}`
        }`,
      );
    })();
  }, []);
  return status;
}

/** Who the UI is signed in as, in words. */
function signedInAs(session: Session): string {
  return session.open ? 'open server: no key needed' : `signed in with an ${session.role} key`;
}

/**
 * The signed-in layout: the header (the pages this key may open, server status, who is signed in,
 * sign out) above the page. `refused` (the server stopped taking the key, or now asks for one) is
 * said above the page, with a way to sign in, leaving the page as it is.
 */
export function Shell({
  session,
  page,
  refused,
  onSignOut,
  children,
}: {
  session: Session;
  /** The first segment of the route: its navigation link is marked current. */
  page: string | undefined;
  refused: boolean;
  onSignOut: () => void;
  children: ComponentChildren;
}) {
  const status = useServerStatus(session);
  return (
    <>
      <header>
        <strong>
          <img src="favicon.svg" alt="" width={20} height={20} class="logo" /> cyrnel
        </strong>
        <nav aria-label="Pages">
          {PAGES.filter(([, , needs]) => may(session.role, needs)).map(([path, label]) => (
            <a key={path} href={`#/${path}`} aria-current={page === path ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="status" data-testid="status">
          {status}
        </span>
        <span class="who" data-testid="signed-in-as">
          {signedInAs(session)}
        </span>
        {session.open ? null : (
          <button type="button" class="secondary" onClick={onSignOut}>
            Sign out
          </button>
        )}
      </header>
      {refused ? (
        <div class="banner error" role="alert" data-testid="key-refused">
          {session.open
            ? 'The server now asks for an API key (a key was stored, so it is no longer open). '
            : 'The server no longer accepts the key you signed in with (it was revoked or deleted). '}
          <button type="button" class="secondary" onClick={onSignOut}>
            Sign in with a key
          </button>
        </div>
      ) : null}
      <main>{children}</main>
    </>
  );
}
