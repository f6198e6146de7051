// The admin UI's entry (dist/app.js): signs in, then shows the page of the hash route inside the
// shell. Pages are in pages/, shared widgets and hooks in components/, the on-demand editor in
// editor/.
import { render } from 'preact';
import { Shell } from './components/shell';
import { useClient } from './components/use-client';
import { useRoute } from './components/use-route';
import { SignInPage } from './pages/sign-in-page';
import { effectiveRoute, pageFor } from './routes';

function App() {
  const { session, needsKey, refused, connect, signOut } = useClient();
  const route = useRoute();
  if (needsKey)
    return <SignInPage onSignedIn={(key) => void connect(key)} onOpen={() => void connect(undefined)} />;
  if (!session) {
    return (
      <main>
        <p class="empty" role="status">
          Connecting…
        </p>
      </main>
    );
  }
  const shown = effectiveRoute(route, session);
  return (
    <Shell session={session} page={shown[0]} refused={refused} onSignOut={signOut}>
      {pageFor(shown, session)}
    </Shell>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
