import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The store the server opens, chosen by `--database-url`. Only SQLite for now; the PostgreSQL
 * store adds `{ kind: 'postgres'; url }` here and a case in `openDatabase`.
 */
export type DatabaseTarget =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

/** The default store: SQLite at `<data-dir>/data.db`. */
export function defaultDatabase(dataDir: string): DatabaseTarget {
  return { kind: 'sqlite', path: join(dataDir, 'data.db') };
}

/**
 * Read a `--database-url`: `sqlite:` or `file:` followed by a path — absolute (`sqlite:///var/lib/c.db`,
 * `sqlite:/var/lib/c.db`), relative to the working directory (`sqlite:c.db`) or under the home
 * directory (`sqlite:~/c.db`); written as is, without percent-decoding. Throws an `Error` saying
 * what is wrong (the caller names the flag). A `postgres://` or `postgresql://` URL must name its database.
 *
 * @example
 * ```ts
 * parseDatabaseUrl('sqlite:///var/lib/cyrnel/data.db'); // { kind: 'sqlite', path: '/var/lib/cyrnel/data.db' }
 * ```
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error('must be a URL such as postgres://user:password@host:5432/database');
    }
    if (parsed.pathname.replace(/^\//, '') === '')
      throw new Error('a postgres:// URL must name the database, as in postgres://host:5432/cyrnel');
    return { kind: 'postgres', url };
  }
  if (scheme !== 'sqlite' && scheme !== 'file') {
    const got = scheme === undefined ? 'no scheme' : `a "${scheme}:" URL`;
    throw new Error(`must be sqlite:<path>, file:<path> or postgres://… (got ${got})`);
  }
  let path = url.slice(scheme.length + 1);
  if (path.startsWith('//')) {
    // `sqlite:///abs` (an empty host): a host before the path has no meaning for a file.
    if (!path.startsWith('///'))
      throw new Error(
        `${scheme}:// must be followed by an absolute path, as in ${scheme}:///var/lib/cyrnel/data.db`,
      );
    path = path.slice(2);
  }
  if (path === '') throw new Error(`${scheme}: needs a file path`);
  return { kind: 'sqlite', path: expandHome(path) };
}

/** An absolute path: `~` and `~/…` under the home directory, anything else from the working directory. */
export function expandHome(path: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return resolve(path);
}

/** What a target is called in logs: a file's path, or a PostgreSQL URL without its password. */
export function describeDatabase(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') return target.path;
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return url.toString();
}
