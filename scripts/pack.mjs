// The publishable packages of the workspace packed into one folder, checked, and the commands
// that use them. `scripts/pack.sh` builds first and calls it; on its own:
//
//   node scripts/pack.mjs list          the publishable packages, one a line: name version
//   node scripts/pack.mjs pack <dir>    pnpm pack each into <dir>, check the tarballs, print the lines
//
// Publishable: not `private`, not in `.changeset/config.json`'s `ignore`. Each tarball is checked
// before anything is printed: its dependencies carry versions (no `workspace:` left), and every
// file its manifest points at (`main`, `module`, `types`, `bin`, `exports`) is in it, with the
// LICENSE and README; an unbuilt package fails here instead of packing without its `dist`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = '@cyrnel/server';
const SCAFFOLD = ['@cyrnel/sdk', '@cyrnel/testing'];

/** The folders of `pnpm-workspace.yaml`'s `packages:` list (`dir/*` and `dir` entries). */
function workspaceDirs() {
  const lines = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8').split('\n');
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line));
  const dirs = [];
  for (const line of lines.slice(start + 1)) {
    const entry = /^\s+-\s+["']?([^"'#\s]+)["']?/.exec(line);
    if (!entry) {
      if (/^\S/.test(line)) break;
      continue;
    }
    const pattern = entry[1];
    if (pattern.endsWith('/*')) {
      const parent = pattern.slice(0, -2);
      for (const name of readdirSync(join(ROOT, parent)).sort()) {
        if (existsSync(join(ROOT, parent, name, 'package.json'))) dirs.push(`${parent}/${name}`);
      }
    } else if (existsSync(join(ROOT, pattern, 'package.json'))) {
      dirs.push(pattern);
    }
  }
  return dirs;
}

/** The publishable packages: `{ name, version, dir }` in workspace order. */
function publishablePackages() {
  const { ignore = [] } = JSON.parse(readFileSync(join(ROOT, '.changeset', 'config.json'), 'utf8'));
  return workspaceDirs()
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true && !ignore.includes(manifest.name))
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir }));
}

/** `@cyrnel/sdk` → `cyrnel-sdk`: how npm and pnpm name a package's tarball (then `-<version>.tgz`). */
function tarballBase(name) {
  return name.replace(/^@/, '').replace('/', '-');
}

/** A word for a POSIX shell: as is when it needs no quoting, else in single quotes. */
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** What is wrong with a packed tarball: the reasons, none when it is whole. */
function tarballProblems(file) {
  const entries = new Set(
    execFileSync('tar', ['-tzf', file], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.replace(/^package\//, '')),
  );
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }),
  );
  const problems = [];
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
      if (/^(workspace|catalog|link|file):/.test(spec))
        problems.push(`${field} ${name} is "${spec}", not a version`);
    }
  }
  const pointed = [manifest.main, manifest.module, manifest.types, manifest.typings];
  if (typeof manifest.bin === 'string') pointed.push(manifest.bin);
  else pointed.push(...Object.values(manifest.bin ?? {}));
  const exported = (value) => {
    if (typeof value === 'string') pointed.push(value);
    else if (value && typeof value === 'object') for (const inner of Object.values(value)) exported(inner);
  };
  exported(manifest.exports);
  for (const path of new Set(pointed)) {
    if (typeof path !== 'string' || path.includes('*')) continue;
    const entry = path.replace(/^\.\//, '');
    if (!entries.has(entry)) problems.push(`${path} is not in it (not built?)`);
  }
  for (const required of ['LICENSE', 'README.md']) {
    if (!entries.has(required)) problems.push(`${required} is not in it`);
  }
  return { manifest, problems };
}

/** The internal packages `name` needs, itself first, through their packed manifests' dependencies. */
function closure(name, manifests) {
  const needed = [];
  const visit = (current) => {
    if (needed.includes(current) || !manifests.has(current)) return;
    needed.push(current);
    for (const dependency of Object.keys(manifests.get(current).dependencies ?? {})) visit(dependency);
  };
  visit(name);
  return [needed[0], ...needed.slice(1).sort()];
}

function pack(outArgument) {
  const out = resolve(outArgument);
  mkdirSync(out, { recursive: true });
  const packages = publishablePackages();
  // Tarballs of these packages from an earlier run (other versions) would be taken for current ones.
  for (const file of readdirSync(out)) {
    if (
      packages.some(({ name }) => file.startsWith(`${tarballBase(name)}-`) && /-\d[^/]*\.tgz$/.test(file))
    ) {
      rmSync(join(out, file));
    }
  }
  // One pnpm for all (it packs them in parallel); each tarball is then looked at on its own.
  try {
    execFileSync(
      'pnpm',
      ['-r', ...packages.flatMap(({ name }) => ['--filter', name]), 'pack', '--pack-destination', out],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
  } catch (error) {
    process.stderr.write(`pack: pnpm pack failed:\n${String(error.stderr ?? error.message).trim()}\n`);
    process.exit(1);
  }
  const files = new Map();
  const manifests = new Map();
  const failures = [];
  for (const { name, version, dir } of packages) {
    const file = join(out, `${tarballBase(name)}-${version}.tgz`);
    if (!existsSync(file)) {
      failures.push(`${name} (${dir}): pnpm pack wrote no ${file}`);
      continue;
    }
    const { manifest, problems } = tarballProblems(file);
    for (const problem of problems) failures.push(`${name} (${dir}): ${problem}`);
    files.set(name, file);
    manifests.set(name, manifest);
  }
  if (failures.length > 0) {
    process.stderr.write(
      `pack: ${failures.length} problem(s):\n${failures.map((line) => `  ${line}\n`).join('')}`,
    );
    process.exit(1);
  }
  const width = Math.max(...packages.map(({ name, version }) => `${name}@${version}`.length));
  const listed = packages
    .map(({ name, version }) => `  ${`${name}@${version}`.padEnd(width)}  ${shellWord(files.get(name))}`)
    .join('\n');
  const server = closure(SERVER, manifests).map((name) => files.get(name));
  const npxArgs = ['-y', ...server.map((file) => `--package=${file}`), 'cyrnel-server'];
  const npx = ['npx', ...npxArgs].map(shellWord).join(' ');
  const config = {
    mcpServers: {
      cyrnel: {
        command: 'npx',
        args: [...npxArgs, 'mcp'],
        env: { CYRNEL_URL: 'http://127.0.0.1:9371', CYRNEL_API_KEY: 'cyk_…' },
      },
    },
  };
  const scaffold = SCAFFOLD.filter((name) => files.has(name)).join(' and ');
  process.stdout.write(`Packed ${packages.length} packages into ${out}:
${listed}

They stand in for the @cyrnel packages until those are on the npm registry; their other
dependencies still come from the registry.

Install the server into a project (its tarball and the ${server.length - 1} it depends on):
  ${['npm', 'install', ...server].map(shellWord).join(' ')}
then run it: npx cyrnel-server (in that project)

Run the server without installing it:
  ${npx}

Its stdio MCP bridge, for clients that start a command (Claude Desktop's
claude_desktop_config.json, Cursor, VS Code), with the server running:
${JSON.stringify(config, null, 2)}

Scaffold a module whose npm install takes ${scaffold} from these tarballs:
  ${npx} module init my-module --type adapter --from ${shellWord(out)}
`);
}

const [command, argument] = process.argv.slice(2);
if (command === 'list') {
  for (const { name, version } of publishablePackages()) process.stdout.write(`${name} ${version}\n`);
} else if (command === 'pack' && argument) {
  pack(argument);
} else {
  process.stderr.write('usage: node scripts/pack.mjs list | pack <dir>\n');
  process.exit(2);
}
