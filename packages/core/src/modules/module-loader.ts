import { existsSync } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type BuiltinModule,
  isModuleDefinition,
  isPlainObject,
  type ModuleDefinition,
  type ModuleInfo,
  validateModuleManifest,
} from '@cyrnel/sdk';
import type { ModuleOrigin } from '@cyrnel/sdk/api';
import { isValidRange, satisfiesRange } from './semver-range';

/** A module the registry knows the code of: a built-in or a custom module loaded from disk. */
export interface RegisteredModule {
  readonly info: ModuleInfo;
  readonly definition: ModuleDefinition;
  readonly isBuiltin: boolean;
  /** The module directory (custom modules). */
  readonly dir?: string;
  /** Changes when the code on disk changes; a reload re-activates the module then. */
  readonly codeKey: string;
  /** Where an installed module came from (its `.cyrnel-install.json`). */
  readonly origin?: ModuleOrigin;
}

/** The file beside `module.json` in which `POST /modules/install` records a module's origin. */
export const INSTALL_RECORD = '.cyrnel-install.json';

async function readOrigin(dir: string): Promise<ModuleOrigin | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(join(dir, INSTALL_RECORD), 'utf8'));
    return isPlainObject(value) && typeof value.source === 'string'
      ? (value as unknown as ModuleOrigin)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What a scan of the modules directory found. */
export interface ModuleScan {
  readonly found: RegisteredModule[];
  readonly skipped: { dir: string; error: string }[];
}

/** Wrap a built-in module. */
export function registerBuiltin(module: BuiltinModule): RegisteredModule {
  return { info: module.manifest, definition: module, isBuiltin: true, codeKey: 'builtin' };
}

function isInside(dir: string, file: string): boolean {
  const path = relative(dir, file);
  return path !== '' && !path.startsWith('..') && !isAbsolute(path);
}

function definitionOf(namespace: Record<string, unknown>): ModuleDefinition | undefined {
  const candidate = isModuleDefinition(namespace.default) ? namespace.default : namespace;
  if (!isModuleDefinition(candidate)) return undefined;
  const schema = (value: unknown) => (isPlainObject(value) ? value : { type: 'object' });
  return {
    configSchema: schema(candidate.configSchema),
    secretsSchema: schema(candidate.secretsSchema),
    instantiate: candidate.instantiate.bind(candidate),
  };
}

/**
 * How Node loads `file`: `module` for `.mjs` or a `.js` whose nearest package.json says
 * `"type": "module"`; otherwise a description of why it is CommonJS.
 */
async function moduleFormat(file: string, moduleDir: string): Promise<string> {
  if (file.endsWith('.mjs')) return 'module';
  if (file.endsWith('.cjs')) return 'a .cjs file';
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      let type: unknown;
      try {
        type = (JSON.parse(await readFile(manifest, 'utf8')) as { type?: unknown }).type;
      } catch {
        return `${manifest} is not valid JSON`;
      }
      if (type === 'module') return 'module';
      return `${dir === moduleDir ? 'its' : 'the nearest'} package.json says "type": ${JSON.stringify(type ?? 'commonjs')}`;
    }
    if (dirname(dir) === dir) return 'no package.json says "type": "module"';
  }
}

/** Load one module directory; throws an Error whose message says what is wrong. */
async function loadModuleDir(dir: string, hostVersion: string): Promise<RegisteredModule | undefined> {
  const manifestFile = join(dir, 'module.json');
  if (!existsSync(manifestFile)) return undefined;
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  } catch {
    throw new Error('module.json is not valid JSON');
  }
  const problems = validateModuleManifest(manifest);
  if (problems.length > 0) throw new Error(`module.json: ${problems.join('; ')}`);
  const info = manifest as ModuleInfo & { main: string };
  const range = info.engines?.cyrnel;
  if (range !== undefined) {
    if (!isValidRange(range)) throw new Error(`engines.cyrnel "${range}" is not a semver range`);
    if (!satisfiesRange(hostVersion, range)) {
      throw new Error(`requires cyrnel ${range}, this host is ${hostVersion}`);
    }
  }
  const realDir = await realpath(dir);
  const mainPath = resolve(dir, info.main);
  if (!isInside(dir, mainPath)) throw new Error('main must be a file inside the module directory');
  if (!existsSync(mainPath)) throw new Error(`main file ${info.main} does not exist`);
  // Symlinks may not lead out of the directory either.
  const realMain = await realpath(mainPath);
  if (!isInside(realDir, realMain)) throw new Error('main must be a file inside the module directory');
  const stats = await stat(realMain);
  if (!stats.isFile()) throw new Error(`main ${info.main} is not a file`);
  const codeKey = `${realMain}:${stats.mtimeMs}:${stats.size}`;
  let namespace: Record<string, unknown>;
  try {
    // The query makes Node load changed code again instead of answering from its module cache.
    const url = `${pathToFileURL(realMain).href}?v=${encodeURIComponent(`${stats.mtimeMs}-${stats.size}`)}`;
    namespace = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`main failed to load: ${error instanceof Error ? error.message : String(error)}`);
  }
  const definition = definitionOf(namespace);
  if (!definition) {
    const format = await moduleFormat(realMain, realDir);
    if (format !== 'module')
      throw new Error(
        `main ${info.main} is a CommonJS file (${format}) that exports no { configSchema, secretsSchema, instantiate() }: assign them to module.exports (or exports.default), or make it an ES module ("type": "module" in its package.json, or a .mjs file) with export default`,
      );
    throw new Error(
      'main must export { configSchema, secretsSchema, instantiate() } (as its default export or as named exports)',
    );
  }
  const { id, name, description, type, version, engines } = info;
  const origin = await readOrigin(dir);
  return {
    info: { id, name, description, type, version, ...(engines ? { engines } : {}) },
    definition,
    isBuiltin: false,
    dir,
    codeKey,
    ...(origin ? { origin } : {}),
  };
}

/**
 * Scan `modulesDir/<dir>/module.json`: directories without a manifest are ignored, a
 * bad one is skipped with the reason; the rest are imported with native `import()`.
 */
export async function scanModules(modulesDir: string | undefined, hostVersion: string): Promise<ModuleScan> {
  const found: RegisteredModule[] = [];
  const skipped: { dir: string; error: string }[] = [];
  if (!modulesDir || !existsSync(modulesDir)) return { found, skipped };
  const entries = (await readdir(modulesDir, { withFileTypes: true }))
    // Dot-directories are the installer's (staging, the previous version during an update).
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  for (const name of entries) {
    try {
      const module = await loadModuleDir(join(modulesDir, name), hostVersion);
      if (module) found.push(module);
    } catch (error) {
      skipped.push({ dir: name, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { found, skipped };
}
