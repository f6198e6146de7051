import type { CyrnelClient } from '@cyrnel/client';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The pages of the navigation: route and label. */
const PAGES: [string, string][] = [
  ['services', 'Services'],
  ['tools', 'Tools'],
  ['playground', 'Playground'],
  ['processes', 'Processes'],
  ['approvals', 'Approvals'],
  ['modules', 'Modules'],
  ['keys', 'Keys'],
  ['connect', 'Connect'],
];

/** The header line: the server's health, the API version and the active environment. */
function useServerStatus(client: CyrnelClient): string {
  const [status, setStatus] = useState('');
  useEffect(() => {
    void (async () => {
      const health = await client.health().catch(() => undefined);
      const document = await client.openapi().catch(() => undefined);
      const environments = await client.modules.list({ type: 'environment', limit: 100 }).then(
        (page) => page.items.find((module) => module.status === 'active')?.id ?? 'none',
        () => 'unknown',
      );
      setStatus(
        `${health?.status === 'ok' ? 'healthy' : 'unreachable'} · API ${document?.info?.version ?? '?'} · environment ${environments}`,
      );
    })();
  }, []);
  return status;
}

/** The signed-in layout: the header (navigation, server status, sign out) above the page. */
export function Shell({
  client,
  page,
  onSignOut,
  children,
}: {
  client: CyrnelClient;
  /** The first segment of the route: its navigation link is marked current. */
  page: string | undefined;
  onSignOut: () => void;
  children: ComponentChildren;
}) {
  const status = useServerStatus(client);
  return (
    <>
      <header>
        <strong>cyrnel</strong>
        <nav aria-label="Pages">
          {PAGES.map(([path, label]) => (
            <a key={path} href={`#/${path}`} aria-current={page === path ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="status" data-testid="status">
          {status}
        </span>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>{children}</main>
    </>
  );
}
