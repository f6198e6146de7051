// The build of what running the server needs, and nothing more: the server and the workspace
// packages it depends on at run time, each as JavaScript only (its own tsup configuration, ES
// modules, without the type declarations and the CommonJS copy that take most of `pnpm build`'s
// time), and the packages built otherwise (the admin UI) by their own `build` script.
// `scripts/prepare-server.sh` runs it in a checkout that has only the server's production
// dependencies; `pnpm build` stays the full build and replaces these outputs when it runs.
//
// A package whose inputs did not change since its last build here is left as it is: each build
// writes a fingerprint of the inputs to `dist/.runtime-build`.
//
// Usage: node scripts/build-runtime.mjs   (after the install; prints to stderr only)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const STAMP = '.runtime-build';
/** Files of the repository every package's build reads besides its own. */
const SHARED_INPUTS = ['pnpm-lock.yaml', 'tsconfig.base.json', 'scripts/build-runtime.mjs'];

const log = (line) => process.stderr.write(`build-runtime: ${line}\n`);

/** Every workspace package by name: its folder and manifest. */
function workspacePackages() {
  const found = new Map();
  for (const parent of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, parent))) {
      const dir = join(root, parent, name);
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      found.set(manifest.name, { name: manifest.name, dir, manifest });
    }
  }
  return found;
}

/** The workspace packages `name` needs at run time (its `dependencies`, transitively), itself included. */
function runtimeClosure(all, name, seen = new Map()) {
  const pkg = all.get(name);
  if (!pkg || seen.has(name)) return seen;
  seen.set(name, pkg);
  for (const [dep, spec] of Object.entries(pkg.manifest.dependencies ?? {})) {
    if (String(spec).startsWith('workspace:')) runtimeClosure(all, dep, seen);
  }
  return seen;
}

/** The files under `dir`, recursively (paths relative to `base`). */
function filesUnder(dir, base) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') out.push(...filesUnder(path, base));
    else if (entry.isFile()) out.push(relative(base, path));
  }
  return out;
}

/** What a package's build reads of its own folder (sorted): its top-level files and `src/`. */
function listFiles(dir) {
  const top = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
  const src = join(dir, 'src');
  return [...top, ...(existsSync(src) ? filesUnder(src, dir) : [])].sort();
}

/** A digest of what a package's build reads: its files, the shared inputs, its dependencies' digests. */
function fingerprint(pkg, dependencyDigests) {
  const hash = createHash('sha256');
  for (const file of listFiles(pkg.dir)) hash.update(`${file}\0`).update(readFileSync(join(pkg.dir, file)));
  for (const file of SHARED_INPUTS) hash.update(`${file}\0`).update(readFileSync(resolve(root, file)));
  for (const digest of dependencyDigests) hash.update(digest);
  return hash.digest('hex');
}

/** Run a command in `cwd`, its output kept for the error; rejects naming the package when it fails. */
function run(name, command, args, cwd) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', fail);
    child.on('exit', (code) => {
      if (code === 0) done();
      else fail(new Error(`${name}: \`${[command, ...args].join(' ')}\` failed (exit ${code})\n${output}`));
    });
  });
}

/**
 * tsup's options for a package's own configuration (package.json "tsup", one or several builds):
 * ES modules only, no declarations, no cleaning (the folder was emptied; builds share it).
 */
function runtimeOptions(pkg) {
  return [pkg.manifest.tsup]
    .flat()
    .map((options) => ({
      ...options,
      config: false,
      silent: true,
      dts: false,
      clean: false,
      format: [options.format ?? 'cjs'].flat().filter((format) => format === 'esm'),
      // tsup reads the package from the working directory; esbuild would keep the first one's.
      esbuildOptions(esbuild) {
        esbuild.absWorkingDir = pkg.dir;
      },
    }))
    .filter((options) => options.format.length > 0);
}

// tsup runs in this process (a process of its own per package costs more than the build): one
// package at a time, since it works in the current directory.
const tsup = createRequire(join(root, 'package.json'))('tsup');
let tsupQueue = Promise.resolve();
function buildWithTsup(pkg) {
  const turn = tsupQueue.then(async () => {
    process.chdir(pkg.dir);
    try {
      for (const options of runtimeOptions(pkg)) await tsup.build(options);
    } catch (error) {
      throw new Error(`${pkg.name}: tsup failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      process.chdir(root);
    }
  });
  tsupQueue = turn.catch(() => {});
  return turn;
}

/** Build one package: with tsup as above, or by its own `build` script (the admin UI's). */
async function build(pkg) {
  rmSync(join(pkg.dir, 'dist'), { recursive: true, force: true });
  if (pkg.manifest.tsup) await buildWithTsup(pkg);
  else if (pkg.manifest.scripts?.build)
    await run(pkg.name, 'sh', ['-c', pkg.manifest.scripts.build], pkg.dir);
  else throw new Error(`${pkg.name} has neither a tsup configuration nor a build script`);
}

const started = performance.now();
const packages = runtimeClosure(workspacePackages(), '@cyrnel/server');
const workspaceDeps = (pkg) =>
  Object.keys(pkg.manifest.dependencies ?? {}).filter((dep) => packages.has(dep) && dep !== pkg.name);

// A package starts once the packages it depends on are done (only a bundling build such as the
// admin UI's reads them; tsup leaves dependencies external): the admin UI's build, a process of
// its own, runs beside the tsup builds.
const results = new Map();
const digests = new Map();
let built = 0;

function ensureBuilt(pkg) {
  if (!results.has(pkg.name)) {
    results.set(
      pkg.name,
      (async () => {
        await Promise.all(workspaceDeps(pkg).map((dep) => ensureBuilt(packages.get(dep))));
        const digest = fingerprint(
          pkg,
          workspaceDeps(pkg).map((dep) => digests.get(dep)),
        );
        digests.set(pkg.name, digest);
        const stamp = join(pkg.dir, 'dist', STAMP);
        if (existsSync(stamp) && statSync(stamp).isFile() && readFileSync(stamp, 'utf8') === digest) return;
        await build(pkg);
        writeFileSync(stamp, digest);
        built += 1;
      })(),
    );
  }
  return results.get(pkg.name);
}

try {
  await Promise.all([...packages.values()].map(ensureBuilt));
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
log(
  built === 0
    ? `${packages.size} packages up to date`
    : `built ${built} of ${packages.size} packages in ${seconds} s (JavaScript only; \`pnpm build\` for everything)`,
);
