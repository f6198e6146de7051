import { createClient } from '@cyrnel/client';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { type Session, whoIs } from './access';

/** Where the API key is kept: the tab's session storage, so it goes with the tab. */
export const KEY_STORAGE = 'cyrnel.apiKey';

/**
 * The session with this server, once a key (or none, on a server without keys) was accepted, and
 * the role of that key. It starts from the key the tab kept; `needsKey` asks for one. Once in, a
 * 401 to any request (the key was revoked, or the first key was stored on a server that had none)
 * sets `refused`: the page says so and offers to sign in, without losing what it shows (a key just
 * created, shown once).
 */
export function useClient() {
  const [session, setSession] = useState<Session | undefined>();
  const [needsKey, setNeedsKey] = useState(false);
  const [refused, setRefused] = useState(false);
  const connect = useCallback(async (key: string | undefined) => {
    const base = { baseUrl: location.origin, ...(key ? { apiKey: key } : {}) };
    try {
      const { role, open } = await whoIs(createClient(base));
      if (key && !open) sessionStorage.setItem(KEY_STORAGE, key);
      const watching: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (response.status === 401) setRefused(true);
        return response;
      };
      setSession({ client: createClient({ ...base, fetch: watching }), role, open });
      setRefused(false);
      setNeedsKey(false);
    } catch {
      sessionStorage.removeItem(KEY_STORAGE);
      setSession(undefined);
      setNeedsKey(true);
    }
  }, []);
  useEffect(() => void connect(sessionStorage.getItem(KEY_STORAGE) ?? undefined), []);
  const signOut = () => {
    sessionStorage.removeItem(KEY_STORAGE);
    setSession(undefined);
    setRefused(false);
    setNeedsKey(true);
  };
  return { session, needsKey, refused, connect, signOut };
}
