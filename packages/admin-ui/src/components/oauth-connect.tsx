import type { CyrnelClient } from '@cyrnel/client';
import type { ConnectionRecord } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';
import { ErrorLine } from './error-line';
import { useAction } from './use-action';

/**
 * A connection's OAuth description, when the API gives it one (an `oauth` field on the record);
 * `undefined` for a connection of plain secrets. Read defensively: records without the field are
 * what the API answers today.
 */
export function oauthOf(record: ConnectionRecord): unknown {
  const oauth = (record as ConnectionRecord & { oauth?: unknown }).oauth;
  return oauth === null ? undefined : oauth;
}

/** `url` when it is an http(s) address a new tab may open, else an Error naming it. */
function httpUrl(url: unknown): string | Error {
  try {
    const parsed = new URL(String(url));
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return parsed.href;
  } catch {
    // said below
  }
  return new Error('The server answered no http(s) authorization address.');
}

/**
 * "Connect" for an OAuth connection: asks the server for the authorization page
 * (`POST /services/:serviceId/connections/:name/authorize` → `{authorizationUrl}`) and opens it in
 * a new tab (without this page as its opener), also as a link in case the browser blocked the tab.
 * The page polls the connections, so the status changes once the person has authorized.
 */
export function OAuthConnect({
  client,
  serviceId,
  record,
}: {
  client: CyrnelClient;
  serviceId: string;
  record: ConnectionRecord;
}) {
  const [opened, setOpened] = useState<string | undefined>();
  const { error, busy, run, setError } = useAction();
  const connect = () =>
    void run(async () => {
      setOpened(undefined);
      // Signs in again as before; client credentials are signed in at once (no page to open).
      const answer = await client.connections.authorize(serviceId, record.name);
      if (!('authorizationUrl' in answer)) return;
      const url = httpUrl(answer.authorizationUrl);
      if (url instanceof Error) return setError(url);
      window.open(url, '_blank', 'noopener,noreferrer');
      setOpened(url);
    });
  return (
    <div class="oauth-connect">
      <button type="button" disabled={busy} aria-label={`Connect ${record.name}`} onClick={connect}>
        Connect
      </button>
      {opened ? (
        <p class="muted" role="status">
          Opened in a new tab; if it did not open:{' '}
          <a href={opened} target="_blank" rel="noopener noreferrer">
            the authorization page
          </a>
        </p>
      ) : null}
      <ErrorLine error={error} />
    </div>
  );
}
