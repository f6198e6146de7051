import { createHash } from 'node:crypto';
import { isPlainObject } from '@cyrnel/sdk';
import type { ModuleOrigin } from '@cyrnel/sdk/api';
import { type DownloadDefinitionOptions, downloadBytes } from '../definition-source/download-definition';
import { cyrnelError } from '../errors';
import { isValidRange, satisfiesRange, semver } from '../modules/semver-range';
import { chooseVersion, verifySha256 } from './registry-document';
import type { ServiceRegistries } from './service-registries';

/** npm package names (`name`, `@scope/name`), as npm validates them today. */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/** A resolved archive: where to download it, how to verify it, what it will be recorded as. */
export interface Resolved {
  readonly url: string;
  readonly verify: (bytes: Buffer) => void;
  readonly origin: ModuleOrigin;
}

/**
 * Check `bytes` against npm's `dist.integrity` (SRI: any of its sha512/sha384/sha256 digests must
 * match) or, for old packages without one, `dist.shasum` (SHA-1 hex).
 */
function verifyNpm(what: string, bytes: Buffer, integrity: unknown, shasum: unknown): void {
  if (typeof integrity === 'string' && integrity.trim() !== '') {
    const entries = integrity.trim().split(/\s+/);
    const supported = entries.filter((entry) => /^sha(256|384|512)-/.test(entry));
    if (supported.length === 0)
      throw cyrnelError('invalid_registry', `${what}: no supported digest in its integrity`);
    const ok = supported.some((entry) => {
      const [algorithm, digest] = entry.split('-', 2) as [string, string];
      return createHash(algorithm).update(bytes).digest('base64') === digest.split('?')[0];
    });
    if (!ok)
      throw cyrnelError(
        'integrity_mismatch',
        `${what}: the tarball does not match its integrity ${entries[0]}`,
      );
    return;
  }
  if (typeof shasum === 'string') {
    if (createHash('sha1').update(bytes).digest('hex') !== shasum.toLowerCase())
      throw cyrnelError('integrity_mismatch', `${what}: the tarball does not match its shasum`);
    return;
  }
  throw cyrnelError('invalid_registry', `${what}: the npm metadata gives no integrity or shasum`);
}

/** Options of {@link createModuleSources}. */
export interface ModuleSourcesOptions {
  /** How metadata is downloaded (the outbound policy, size and time caps). */
  readonly download: DownloadDefinitionOptions;
  /** Checked against `engines.cyrnel` of every version. */
  readonly hostVersion: string;
  /** Base URL of the npm registry packages are fetched from. */
  readonly npmRegistry: string;
  /** Reads a registry's metadata (the service registries' reader). */
  readonly registries: Pick<ServiceRegistries, 'read'>;
}

/**
 * Where a module version comes from: an npm package (`name`, `npm:name`, `@scope/name`) or a
 * registry entry (`<registry URL>#<module id>`), resolved to the archive of the version a range
 * (or dist-tag) picks, with the check its bytes must pass.
 */
export function createModuleSources(
  options: ModuleSourcesOptions,
): (source: string, range: string | null, autoUpdate: boolean) => Promise<Resolved> {
  const { download, hostVersion } = options;
  const npmBase = options.npmRegistry.replace(/\/+$/, '');

  const resolveNpm = async (name: string, range: string | null, autoUpdate: boolean): Promise<Resolved> => {
    const url = `${npmBase}/${name.replace('/', '%2f')}`;
    const { bytes } = await downloadBytes(url, {
      ...download,
      accept: 'application/json',
      notFound: () => cyrnelError('registry_entry_not_found', `the npm registry has no package ${name}`),
    });
    let packument: unknown;
    try {
      packument = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw cyrnelError('invalid_registry', `npm metadata of ${name} is not valid JSON`);
    }
    if (!isPlainObject(packument) || !isPlainObject(packument.versions))
      throw cyrnelError('invalid_registry', `npm metadata of ${name} has no versions`);
    const tags = isPlainObject(packument['dist-tags']) ? packument['dist-tags'] : {};
    const versions = Object.keys(packument.versions).filter((version) => semver().valid(version) !== null);
    const wanted = range ?? 'latest';
    let version: string | undefined;
    if (typeof tags[wanted] === 'string') version = tags[wanted] as string;
    else if (isValidRange(wanted)) version = semver().maxSatisfying(versions, wanted) ?? undefined;
    else
      throw cyrnelError(
        'invalid_request',
        `version ${wanted} is neither a semver range nor a dist-tag of ${name}`,
        {
          details: [{ path: 'version', message: 'not a semver range or dist-tag' }],
        },
      );
    const manifest = version === undefined ? undefined : packument.versions[version];
    if (version === undefined || !isPlainObject(manifest))
      throw cyrnelError('registry_entry_not_found', `npm package ${name} has no version matching ${wanted}`);
    const engines = isPlainObject(manifest.engines) ? manifest.engines : {};
    if (typeof engines.cyrnel === 'string' && !satisfiesRange(hostVersion, engines.cyrnel))
      throw cyrnelError(
        'incompatible_version',
        `${name}@${version} requires cyrnel ${engines.cyrnel}, this server is ${hostVersion}`,
      );
    const dist = isPlainObject(manifest.dist) ? manifest.dist : {};
    if (typeof dist.tarball !== 'string')
      throw cyrnelError('invalid_registry', `${name}@${version} has no tarball`);
    return {
      url: dist.tarball,
      verify: (archive) => verifyNpm(`${name}@${version}`, archive, dist.integrity, dist.shasum),
      origin: { kind: 'npm', source: name, version, range, autoUpdate, integrity: '' },
    };
  };

  const resolveRegistry = async (
    source: string,
    range: string | null,
    autoUpdate: boolean,
  ): Promise<Resolved> => {
    const hash = source.indexOf('#');
    const id = source.slice(hash + 1);
    const { url, document } = await options.registries.read(source.slice(0, hash));
    const entry = document.modules && Object.hasOwn(document.modules, id) ? document.modules[id] : undefined;
    if (!entry) throw cyrnelError('registry_entry_not_found', `registry ${url} has no module ${id}`);
    const chosen = chooseVersion(`module ${id}`, entry, range ?? undefined, hostVersion);
    return {
      url: chosen.url,
      verify: (archive) => verifySha256(`module ${id} ${chosen.version}`, archive, chosen.hash),
      origin: {
        kind: 'registry',
        source: `${url}#${id}`,
        version: chosen.version,
        range,
        autoUpdate,
        integrity: '',
      },
    };
  };

  const resolve = (source: string, range: string | null, autoUpdate: boolean): Promise<Resolved> => {
    if (source.includes('#')) return resolveRegistry(source, range, autoUpdate);
    const name = source.startsWith('npm:') ? source.slice(4) : source;
    if (!NPM_NAME.test(name))
      throw cyrnelError(
        'invalid_request',
        `source ${source} is neither an npm package name nor <registry URL>#<module id>`,
        {
          details: [{ path: 'source', message: 'not an npm package name or <registry URL>#<module id>' }],
        },
      );
    return resolveNpm(name, range, autoUpdate);
  };

  return resolve;
}
