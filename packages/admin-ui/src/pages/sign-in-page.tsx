import { CyrnelHttpError, createClient } from '@cyrnel/client';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { useAction } from '../components/use-action';

/**
 * Whether this server needs a key at all: a server without any key answers every request as an
 * admin, whatever key is sent, so asking for one would accept anything.
 */
type Needs = 'checking' | 'key' | 'nothing';

/** True when this server refuses a request without a key (401); false when it answers it. */
async function needsAKey(): Promise<boolean> {
  try {
    await createClient({ baseUrl: location.origin }).tools.list({ limit: 1 });
    return false;
  } catch (error) {
    if (error instanceof CyrnelHttpError && error.status === 401) return true;
    throw error;
  }
}

/**
 * Asks for an API key and tries it before handing it on: a wrong key shows the API's refusal. A
 * server without keys (it answers without one) is said to be open, with no key to enter: the
 * person goes straight in.
 */
export function SignInPage({
  onSignedIn,
  onOpen,
}: {
  onSignedIn: (key: string) => void;
  /** Go in without a key (a server without keys). */
  onOpen: () => void;
}) {
  const [key, setKey] = useState('');
  const [needs, setNeeds] = useState<Needs>('checking');
  const { error, busy, run } = useAction();
  useEffect(() => {
    void run(async () => {
      try {
        setNeeds((await needsAKey()) ? 'key' : 'nothing');
      } catch (error) {
        // A server that cannot be asked (down) still gets the form, with the reason.
        setNeeds('key');
        throw error;
      }
    });
  }, []);
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      // A server that answers without a key would take any key: say so rather than "sign in".
      if (!(await needsAKey())) {
        setKey('');
        setNeeds('nothing');
        return;
      }
      const client = createClient({ baseUrl: location.origin, apiKey: key.trim() });
      await client.tools.list({ limit: 1 });
      onSignedIn(key.trim());
    });
  };
  return (
    <main class="signin">
      <h1>Sign in to cyrnel</h1>
      {needs === 'checking' ? (
        <p class="empty" role="status">
          Asking the server whether it needs a key…
        </p>
      ) : needs === 'nothing' ? (
        <section aria-label="No key needed" data-testid="open-server">
          <p>
            <strong>This server has no API key: there is no key to enter.</strong> It answers every request as
            an admin, from anyone who can reach its address (a server started without keys listens on this
            machine only, unless started with <code>--insecure</code>). Create a key on the Keys page to
            require one.
          </p>
          <div class="row">
            <button type="button" onClick={onOpen}>
              Open the admin UI
            </button>
          </div>
        </section>
      ) : (
        <form onSubmit={submit} aria-label="Sign in">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autocomplete="current-password"
            value={key}
            onInput={(event) => setKey((event.target as HTMLInputElement).value)}
          />
          <div class="row">
            <button type="submit" disabled={busy || key.trim() === ''}>
              Sign in
            </button>
          </div>
        </form>
      )}
      <ErrorLine error={error} />
    </main>
  );
}
