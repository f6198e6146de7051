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
 * `/ui`: the admin UI's static files, each read once, by its first request (not at start: they
 * are megabytes a server whose UI nobody opens would hold). No key is needed for the files
 * themselves (the page asks for one and sends it with every API call). Each answer carries the
 * CSP above and an ETag; the browser revalidates (`no-cache`), so a new server version is seen at
 * once and an unchanged file costs a 304.
 */
export function uiRouteGroup(): RouteGroup | undefined {
  let dist: string;
  try {
    dist = join(dirname(createRequire(import.meta.url).resolve('@cyrnel/admin-ui/package.json')), 'dist');
  } catch {
    return undefined;
  }
  if (!existsSync(join(dist, 'index.html'))) return undefined;
  const names = new Set(readdirSync(dist).filter((name) => /^[\w-]+\.(html|js|css)$/.test(name)));
  const files = new Map<string, { body: Buffer; type: string; etag: string }>();
  /** The file, read and hashed on its first request; undefined when the UI has no such file. */
  const fileOf = (name: string) => {
    if (!names.has(name)) return undefined;
    let file = files.get(name);
    if (!file) {
      const type = TYPES[name.split('.').pop() as string] as string;
      const body = readFileSync(join(dist, name));
      file = { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
      files.set(name, file);
    }
    return file;
  };
  const app = new Hono<AppEnv>();
  const serve = (name: string) => (c: { req: { header(name: string): string | undefined } }) => {
    const file = fileOf(name);
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
    if (c.req.header('if-none-match') === file.etag) return new Response(null, { status: 304, headers });
    return new Response(new Uint8Array(file.body), { status: 200, headers });
  };
  app.get('*', (c) => {
    const pathname = new URL(c.req.url).pathname;
    // `/ui` → `/ui/`, so the page's relative URLs resolve below it.
    if (pathname === '/ui') return c.redirect('/ui/', 301);
    const file = pathname.slice('/ui/'.length);
    return serve(file === '' ? 'index.html' : file)(c);
  });
  return { path: '/ui', app, auth: 'none' };
}
