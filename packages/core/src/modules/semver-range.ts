import { createRequire } from 'node:module';

let loaded: typeof import('semver') | undefined;
/**
 * npm's `semver` (47 modules), loaded by the first version check: a host without custom modules
 * or registry lookups never holds it.
 */
export function semver(): typeof import('semver') {
  loaded ??= createRequire(import.meta.url)('semver') as typeof import('semver');
  return loaded;
}

/**
 * npm's range semantics as npm applies them to `engines`: prereleases of the host take part in
 * every range (`0.2.0-rc.1` satisfies `^0.1.0 || >=0.2.0-0`, and `<1.0.0` holds for `1.0.0-rc.1`).
 */
const OPTIONS = { includePrerelease: true } as const;

/** True when `range` is a range npm's `semver` parses (`*` and `''` included). */
export function isValidRange(range: string): boolean {
  return semver().validRange(range, OPTIONS) !== null;
}

/**
 * Whether `version` satisfies the npm range `range` (npm `semver` with `includePrerelease`, as npm
 * checks `engines`). False for a malformed version or range.
 *
 * @example
 * ```ts
 * satisfiesRange('1.4.0', '^1.2.0 || ^2'); // true
 * ```
 */
export function satisfiesRange(version: string, range: string): boolean {
  return semver().satisfies(version, range, OPTIONS);
}
