import type { KeyRole } from '@cyrnel/sdk/api';
import { may, PAGES } from '../components/access';

/**
 * A page the key signed in with may not open, said plainly and at once (nothing is asked of the
 * server, which would refuse it): which key it needs, and the pages this key may open.
 */
export function ForbiddenPage({ role, needs, page }: { role: KeyRole; needs: KeyRole; page: string }) {
  const label = PAGES.find(([path]) => path === page)?.[1] ?? page;
  const open = PAGES.filter(([, , least]) => may(role, least));
  return (
    <>
      <h1>{label}</h1>
      <p data-testid="forbidden">
        <strong>
          This page needs {needs === 'admin' ? 'an admin key' : 'an approver or admin key'}; you signed in
          with an {role} key, which may not open it.
        </strong>{' '}
        Sign out and sign in with such a key to use it.
      </p>
      <p>
        This key may open:{' '}
        {open.map(([path, name], index) => (
          <span key={path}>
            {index > 0 ? ', ' : ''}
            <a href={`#/${path}`}>{name}</a>
          </span>
        ))}
        .
      </p>
    </>
  );
}
