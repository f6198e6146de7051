// The admin UI's entry (dist/app.js): signs in, then shows the page of the hash route inside the
// shell. Pages are in pages/, shared widgets and hooks in components/, the on-demand editor in
// editor/.
import { render } from 'preact';
import { Shell } from './components/shell';
import { useClient } from './components/use-client';
import { useRoute } from './components/use-route';
import { SignInPage } from './pages/sign-in-page';
import { pageFor } from './routes';

function App() {
  const { client, needsKey, connect, signOut } = useClient();
  const route = useRoute();
  if (needsKey) return <SignInPage onSignedIn={(key) => void connect(key)} />;
  if (!client) return <p class="empty">Connecting…</p>;
  return (
    <Shell client={client} page={route[0]} onSignOut={signOut}>
      {pageFor(route, client)}
    </Shell>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
