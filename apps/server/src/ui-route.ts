import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AppEnv, RouteGroup } from '@cyrnel/http';
import { Hono } from 'hono';

/** The kinds of file `@cyrnel/admin-ui` builds, served below `/ui`. */
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/**
 * The page may load its own scripts (and its editor's worker) and call this server, nothing
 * else: no inline script, no other origin, no framing, no form posts elsewhere. Inline styles are
 * allowed: the editor (CodeMirror) injects its theme as style elements; styles cannot run code.
 */
export const UI_CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * A path below `/ui/` that names a page, not a file: a route whose first segment is a word
 * (`approvals/<id>`; every file's name has a dot). The UI routes by the hash, so such a path is
 * sent there.
 */
const PAGE_PATH = /^[a-z]+(?:\/[^/]+)*$/;

/** The UI's icon, also answered at `/favicon.ico`, where browsers and tools look without a page. */
const ICON = 'favicon.svg';

/** Where the admin UI is served. */
export const UI_PATH = '/ui';

/** A file of the UI as answered: its bytes, type and ETag. */
interface UiFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

/** `body` as a UI file of `type`, its ETag a hash of the bytes. */
function uiFile(body: Buffer, type: string): UiFile {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

/** The directory of `@cyrnel/admin-ui`'s built files, if it is installed and built. */
function uiDist(): string | undefined {
  let dist: string;
  try {
    dist = join(dirname(createRequire(import.meta.url).resolve('@cyrnel/admin-ui/package.json')), 'dist');
  } catch {
    return undefined;
  }
  return existsSync(join(dist, 'index.html')) ? dist : undefined;
}

/** The answer of `file` (a 304 when the browser has it), with the headers every UI file gets. */
function answer(file: UiFile | undefined, ifNoneMatch: string | undefined): Response {
  if (!file) return new Response('not found', { status: 404 });
  const headers = {
    'content-type': file.type,
    'cache-control': 'no-cache',
    etag: file.etag,
    'content-security-policy': UI_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
  if (ifNoneMatch === file.etag) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(file.body), { status: 200, headers });
}

/**
 * `/ui`: the admin UI's static files, each read once, by its first request (not at start: they
 * are megabytes a server whose UI nobody opens would hold). No key is needed for the files
 * themselves (the page asks for one and sends it with every API call). A page's path
 * (`/ui/approvals/<id>`) is redirected to its hash route (`/ui/#/approvals/<id>`). Each answer carries the
 * CSP above and an ETag; the browser revalidates (`no-cache`), so a new server version is seen at
 * once and an unchanged file costs a 304.
 */
export function uiRouteGroup(): RouteGroup | undefined {
  const dist = uiDist();
  if (!dist) return undefined;
  const names = new Set(readdirSync(dist).filter((name) => /^[\w-]+\.(html|js|css|svg)$/.test(name)));
  const files = new Map<string, UiFile>();
  /** The file, read and hashed on its first request; undefined when the UI has no such file. */
  const fileOf = (name: string): UiFile | undefined => {
    if (!names.has(name)) return undefined;
    let file = files.get(name);
    if (!file) {
      file = uiFile(readFileSync(join(dist, name)), TYPES[name.split('.').pop() as string] as string);
      files.set(name, file);
    }
    return file;
  };
  const app = new Hono<AppEnv>();
  app.get('*', (c) => {
    const pathname = new URL(c.req.url).pathname;
    // `/ui` → `/ui/`, so the page's relative URLs resolve below it.
    if (pathname === '/ui') return c.redirect('/ui/', 301);
    const file = pathname.slice('/ui/'.length);
    const found = fileOf(file === '' ? 'index.html' : file);
    // A page's path (`/ui/approvals/<id>`, the link MCP answers give): the page is its hash route.
    if (!found && PAGE_PATH.test(file)) return c.redirect(`/ui/#/${file}`, 302);
    return answer(found, c.req.header('if-none-match'));
  });
  return { path: UI_PATH, app, auth: 'none' };
}

/**
 * `/favicon.ico`: the UI's icon (an SVG, answered as such), without a key like the UI's files, so
 * a browser's or a tool's look for it at the root finds it instead of a 401. Undefined when the UI
 * is not built.
 */
export function faviconRouteGroup(): RouteGroup | undefined {
  const dist = uiDist();
  if (!dist || !existsSync(join(dist, ICON))) return undefined;
  let file: UiFile | undefined;
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    file ??= uiFile(readFileSync(join(dist, ICON)), TYPES.svg as string);
    return answer(file, c.req.header('if-none-match'));
  });
  return { path: '/favicon.ico', app, auth: 'none' };
}

/** The UI's route groups (`/ui` and `/favicon.ico`): none when `@cyrnel/admin-ui` is not built. */
export function uiRouteGroups(): RouteGroup[] {
  return [uiRouteGroup(), faviconRouteGroup()].filter((group) => group !== undefined);
}
