import { createClient } from '@cyrnel/client';
import { useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { useAction } from '../components/use-action';

/** Asks for an API key and tries it before handing it on: a wrong key shows the API's refusal. */
export function SignInPage({ onSignedIn }: { onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const { error, busy, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const client = createClient({ baseUrl: location.origin, apiKey: key.trim() });
      await client.tools.list({ limit: 1 });
      onSignedIn(key.trim());
    });
  };
  return (
    <main class="signin">
      <h1>Sign in to cyrnel</h1>
      <form onSubmit={submit}>
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
      <ErrorLine error={error} />
    </main>
  );
}
