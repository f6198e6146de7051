import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppEnv, RouteGroup } from '@cyrnel/http';
import { Hono } from 'hono';

/** A command and its arguments, as an MCP client's configuration takes them. */
export interface InstallCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * How this server was installed, and the command that starts its stdio MCP bridge
 * (`cyrnel-server mcp`) from that installation.
 *
 * - `checkout`: a clone of the repository (`apps/server/dist` below a root with `scripts/mcp.sh`):
 *   `bash <root>/scripts/mcp.sh`, which builds the server first when it is not built.
 * - `npx`: npm's npx cache, started with `npx`: the same packages again (`npx -y --package=<spec>…
 *   cyrnel-server mcp`, or `npx -y @cyrnel/server mcp` when that was the one package).
 * - `package`: an npm install (a project's or the global `node_modules`): this Node.js running the
 *   installed `dist/cli.js`, so the MCP client's own `PATH` does not matter.
 * - `unknown`: none of these (the server's files were moved or bundled): no command.
 */
export interface ServerInstall {
  readonly kind: 'checkout' | 'npx' | 'package' | 'unknown';
  /** The checkout's root, the npx cache folder, the installed package's folder; null when unknown. */
  readonly path: string | null;
  /** The stdio MCP bridge of this installation, or null when unknown. */
  readonly mcp: InstallCommand | null;
}

/** `GET /server`: the server's version and how it was installed. */
export interface ServerAbout {
  readonly version: string;
  readonly install: ServerInstall;
}

/** The package specs npx was given (`npx --package=<spec>…`), from its cache folder's package.json. */
function npxPackages(cacheDir: string): string[] | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(cacheDir, 'package.json'), 'utf8')) as {
      _npx?: { packages?: unknown };
    };
    const packages = manifest._npx?.packages;
    return Array.isArray(packages) &&
      packages.length > 0 &&
      packages.every((spec) => typeof spec === 'string')
      ? packages
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How the server whose built files are in `distDir` was installed (see {@link ServerInstall}).
 * `execPath` is the Node.js a `package` install's bridge runs with.
 *
 * @example
 * ```ts
 * detectInstall('/home/me/cyrnel/apps/server/dist');
 * // { kind: 'checkout', path: '/home/me/cyrnel',
 * //   mcp: { command: 'bash', args: ['/home/me/cyrnel/scripts/mcp.sh'] } }
 * ```
 */
export function detectInstall(distDir: string, execPath: string = process.execPath): ServerInstall {
  const dir = resolve(distDir);
  const segments = dir.split(sep);
  const inNodeModules = segments.includes('node_modules');
  const root = resolve(dir, '..', '..', '..');
  const script = join(root, 'scripts', 'mcp.sh');
  if (!inNodeModules && existsSync(script) && existsSync(join(root, 'pnpm-workspace.yaml'))) {
    return { kind: 'checkout', path: root, mcp: { command: 'bash', args: [script] } };
  }
  const packageDir = dirname(dir);
  if (!inNodeModules || !existsSync(join(packageDir, 'package.json'))) {
    return { kind: 'unknown', path: null, mcp: null };
  }
  // npm's npx cache: <cache>/_npx/<hash>/node_modules/@cyrnel/server/dist.
  const npx = segments.lastIndexOf('_npx');
  if (npx >= 0 && npx + 1 < segments.length) {
    const cacheDir = segments.slice(0, npx + 2).join(sep);
    const packages = npxPackages(cacheDir);
    if (packages) {
      const [only] = packages;
      const args =
        packages.length === 1 && only !== undefined && /^@cyrnel\/server(@|$)/.test(only)
          ? ['-y', only, 'mcp']
          : ['-y', ...packages.map((spec) => `--package=${spec}`), 'cyrnel-server', 'mcp'];
      return { kind: 'npx', path: cacheDir, mcp: { command: 'npx', args } };
    }
  }
  return {
    kind: 'package',
    path: packageDir,
    mcp: { command: execPath, args: [join(dir, 'cli.js'), 'mcp'] },
  };
}

/** The folder of the server's built files: where this module is (tsup bundles it into `dist/`). */
export function serverDistDir(): string {
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * `GET /server` for admin keys: {@link ServerAbout}, what the admin UI's Connect page shows
 * (the MCP bridge's command of this installation). Admins only: it holds paths of the machine.
 *
 * @example
 * ```ts
 * createApp(host, { routes: [serverRouteGroup({ version: '0.1.0', install: detectInstall(serverDistDir()) })] });
 * ```
 */
export function serverRouteGroup(about: ServerAbout): RouteGroup {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => c.json(about, 200, { 'cache-control': 'no-store' }));
  return { path: '/server', app, auth: 'admin' };
}
