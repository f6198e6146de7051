import { type CyrnelClient, createClient } from '@cyrnel/client';
import { useCallback, useEffect, useState } from 'preact/hooks';

/** Where the API key is kept: the tab's session storage, so it goes with the tab. */
export const KEY_STORAGE = 'cyrnel.apiKey';

/**
 * The API client of this server, once a key (or none, on a keyless loopback server) was accepted.
 * It starts from the key the tab kept; `needsKey` asks for one.
 */
export function useClient() {
  const [client, setClient] = useState<CyrnelClient | undefined>();
  const [needsKey, setNeedsKey] = useState(false);
  const connect = useCallback(async (key: string | undefined) => {
    const candidate = createClient({ baseUrl: location.origin, ...(key ? { apiKey: key } : {}) });
    try {
      await candidate.tools.list({ limit: 1 });
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      setClient(candidate);
      setNeedsKey(false);
    } catch {
      sessionStorage.removeItem(KEY_STORAGE);
      setNeedsKey(true);
    }
  }, []);
  useEffect(() => void connect(sessionStorage.getItem(KEY_STORAGE) ?? undefined), []);
  const signOut = () => {
    sessionStorage.removeItem(KEY_STORAGE);
    setClient(undefined);
    setNeedsKey(true);
  };
  return { client, needsKey, connect, signOut };
}
