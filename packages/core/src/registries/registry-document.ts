import { createHash } from 'node:crypto';
import { isPlainObject } from '@cyrnel/sdk';
import type { RegistryDocument, RegistryEntry, RegistryServiceEntry, RegistryVersion } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import { isValidRange, satisfiesRange, semver } from '../modules/semver-range';

/** The metadata URL of a registry given by its base URL or by the metadata document's own URL. */
export function metadataUrl(registry: string): string {
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    throw cyrnelError('invalid_request', `registry ${registry} is not a valid URL`, {
      details: [{ path: 'source', message: 'not a valid URL' }],
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw cyrnelError('invalid_request', 'a registry URL must be http or https', {
      details: [{ path: 'source', message: 'must be http or https' }],
    });
  }
  url.hash = '';
  if (url.pathname.endsWith('.json')) return url.href;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/.well-known/registry.json`;
  return url.href;
}

const HASH = /^[0-9a-f]{64}$/i;

function invalid(url: string, problem: string): Error {
  return cyrnelError('invalid_registry', `registry ${url} is invalid: ${problem}`);
}

function checkEntry(url: string, where: string, value: unknown, isService: boolean): RegistryEntry {
  if (!isPlainObject(value)) throw invalid(url, `${where} is not an object`);
  if (isService && typeof value.adapter !== 'string') throw invalid(url, `${where}.adapter is not a string`);
  if (typeof value.latestVersion !== 'string') throw invalid(url, `${where}.latestVersion is not a string`);
  if (!isPlainObject(value.versions)) throw invalid(url, `${where}.versions is not an object`);
  for (const [version, entry] of Object.entries(value.versions)) {
    const at = `${where}.versions["${version}"]`;
    if (semver().valid(version) === null) throw invalid(url, `${at}: the key is not a semver version`);
    if (!isPlainObject(entry) || typeof entry.url !== 'string')
      throw invalid(url, `${at}.url is not a string`);
    if (typeof entry.hash !== 'string' || !HASH.test(entry.hash))
      throw invalid(url, `${at}.hash is not a SHA-256 hex digest`);
    const engines = entry.engines;
    if (
      engines !== undefined &&
      (!isPlainObject(engines) || (engines.cyrnel !== undefined && typeof engines.cyrnel !== 'string'))
    )
      throw invalid(url, `${at}.engines.cyrnel is not a string`);
  }
  if (!Object.hasOwn(value.versions, value.latestVersion))
    throw invalid(url, `${where}.latestVersion ${value.latestVersion} is not one of its versions`);
  return value as unknown as RegistryEntry;
}

/**
 * Parse and check a registry metadata document: every entry's `latestVersion` among its
 * `versions`, every version a semver key with a `url` and a SHA-256 `hash`; 502
 * `invalid_registry` naming the first problem.
 */
export function parseRegistryDocument(url: string, bytes: Buffer): RegistryDocument {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid(url, 'not valid JSON');
  }
  if (!isPlainObject(value)) throw invalid(url, 'not a JSON object');
  if (value.name !== undefined && typeof value.name !== 'string') throw invalid(url, 'name is not a string');
  for (const kind of ['services', 'modules'] as const) {
    const entries = value[kind];
    if (entries === undefined) continue;
    if (!isPlainObject(entries)) throw invalid(url, `${kind} is not an object`);
    for (const [name, entry] of Object.entries(entries))
      checkEntry(url, `${kind}["${name}"]`, entry, kind === 'services');
  }
  return value as RegistryDocument;
}

/** One chosen version of an entry. */
export interface ChosenVersion extends RegistryVersion {
  readonly version: string;
}

/**
 * The version to install: `requested` as an exact key, else the highest key satisfying it as a
 * semver range; absent, `latestVersion`. Its `engines.cyrnel` must include `hostVersion` (409
 * `incompatible_version`); no match is a 404 `registry_entry_not_found`.
 */
export function chooseVersion(
  what: string,
  entry: RegistryEntry,
  requested: string | undefined,
  hostVersion: string,
): ChosenVersion {
  const versions = Object.keys(entry.versions);
  let version: string | undefined;
  if (requested === undefined) version = entry.latestVersion;
  else if (Object.hasOwn(entry.versions, requested)) version = requested;
  else if (isValidRange(requested)) version = semver().maxSatisfying(versions, requested) ?? undefined;
  else
    throw cyrnelError('invalid_request', `version ${requested} is neither a version nor a semver range`, {
      details: [{ path: 'version', message: 'not a version or a semver range' }],
    });
  if (version === undefined)
    throw cyrnelError('registry_entry_not_found', `${what} has no version matching ${requested}`);
  const chosen = entry.versions[version] as RegistryVersion;
  const range = chosen.engines?.cyrnel;
  if (range !== undefined && !satisfiesRange(hostVersion, range))
    throw cyrnelError(
      'incompatible_version',
      `${what} ${version} requires cyrnel ${range}, this server is ${hostVersion}`,
    );
  return { ...chosen, version };
}

/** 502 `integrity_mismatch` unless `bytes` hash to `expected` (SHA-256 hex). */
export function verifySha256(what: string, bytes: Buffer, expected: string): void {
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected.toLowerCase())
    throw cyrnelError(
      'integrity_mismatch',
      `${what}: SHA-256 ${actual} does not match the registry's ${expected}`,
    );
}

/** A registry name made a service id: other characters become `_`, a leading digit gets one. */
export function identifierOf(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[0-9]/.test(id) ? `_${id}` : id;
}

/** The service entry `name` of `document`, or undefined. */
export function serviceEntry(document: RegistryDocument, name: string): RegistryServiceEntry | undefined {
  return document.services && Object.hasOwn(document.services, name) ? document.services[name] : undefined;
}
