/** A parsed semantic version. */
interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: readonly string[];
}

type Operator = '<' | '<=' | '>' | '>=' | '=';

interface Comparator {
  readonly operator: Operator;
  readonly version: Version;
}

const VERSION =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;
const PARTIAL =
  /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    prerelease: match[4] ? match[4].split('.') : [],
  };
}

function compareIdentifiers(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Number(a) - Number(b);
  if (numeric.test(a)) return -1;
  if (numeric.test(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Semver precedence (build metadata ignored). */
function compare(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return core;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return b.prerelease.length - a.prerelease.length;
  }
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const order = compareIdentifiers(x, y);
    if (order !== 0) return order;
  }
  return 0;
}

const v = (major: number, minor: number, patch: number, prerelease: readonly string[] = []): Version => ({
  major,
  minor,
  patch,
  prerelease,
});
/** The lowest version of a tuple: `<X.Y.Z-0` excludes the prereleases of X.Y.Z too. */
const floor = (major: number, minor: number, patch: number) => v(major, minor, patch, ['0']);

/** Expand one comparator token (`^1.2`, `>=1.0.0`, `1.x`, ...) into primitive comparators. */
function expand(token: string): Comparator[] | undefined {
  const match = /^(\^|~>?|>=|<=|>|<|=)?\s*(.*)$/.exec(token);
  const operator = match?.[1] ?? '';
  const partial = PARTIAL.exec(match?.[2] ?? '');
  if (!partial) return undefined;
  const wild = (part: string | undefined) => part === undefined || /^[xX*]$/.test(part);
  const [, M, m, p, pre] = partial;
  if (wild(M))
    return operator === '<' || operator === '>' ? [{ operator: '<', version: v(0, 0, 0, ['0']) }] : [];
  const major = Number(M);
  const minor = wild(m) ? undefined : Number(m);
  const patch = wild(p) ? undefined : Number(p);
  const prerelease = pre ? pre.split('.') : [];
  const exact = v(major, minor ?? 0, patch ?? 0, prerelease);
  // The first version above the partial: 1 → 2.0.0, 1.2 → 1.3.0, 1.2.3 → 1.2.4.
  const next =
    minor === undefined
      ? floor(major + 1, 0, 0)
      : patch === undefined
        ? floor(major, minor + 1, 0)
        : undefined;
  switch (operator) {
    case '^': {
      const upper =
        major > 0 || minor === undefined
          ? floor(major + 1, 0, 0)
          : minor > 0 || patch === undefined
            ? floor(0, minor + 1, 0)
            : floor(0, 0, (patch ?? 0) + 1);
      return [
        { operator: '>=', version: exact },
        { operator: '<', version: upper },
      ];
    }
    case '~':
    case '~>':
      return [
        { operator: '>=', version: exact },
        { operator: '<', version: minor === undefined ? floor(major + 1, 0, 0) : floor(major, minor + 1, 0) },
      ];
    case '>=':
      return [{ operator: '>=', version: exact }];
    case '<':
      return [{ operator: '<', version: next ? floor(major, minor ?? 0, patch ?? 0) : exact }];
    case '>':
      return [next ? { operator: '>=', version: next } : { operator: '>', version: exact }];
    case '<=':
      return [next ? { operator: '<', version: next } : { operator: '<=', version: exact }];
    default:
      return next
        ? [
            { operator: '>=', version: exact },
            { operator: '<', version: next },
          ]
        : [{ operator: '=', version: exact }];
  }
}

function test(comparator: Comparator, version: Version): boolean {
  const order = compare(version, comparator.version);
  switch (comparator.operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    default:
      return order === 0;
  }
}

/** Parse a range into alternatives of comparator sets; undefined when malformed. */
function parseRange(range: string): Comparator[][] | undefined {
  const alternatives: Comparator[][] = [];
  for (const alternative of range.split('||')) {
    const text = alternative.trim().replace(/(\^|~>?|>=|<=|>|<|=)\s+/g, '$1');
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    const tokens = hyphen ? [`>=${hyphen[1]}`, `<=${hyphen[2]}`] : text.split(/\s+/).filter(Boolean);
    const set: Comparator[] = [];
    for (const token of tokens) {
      const comparators = expand(token);
      if (!comparators) return undefined;
      set.push(...comparators);
    }
    alternatives.push(set);
  }
  return alternatives;
}

/** True when `range` is a range {@link satisfiesRange} understands. */
export function isValidRange(range: string): boolean {
  return parseRange(range) !== undefined;
}

/**
 * Whether `version` satisfies the npm-style `range`: `^`, `~`, `>=`, `<=`, `>`, `<`, `=`,
 * x-ranges (`1.x`, `*`), partials (`1.2`), hyphen ranges (`1.0.0 - 2.0.0`), space-separated
 * sets (all must hold) and `||` alternatives. Prereleases compare by semver precedence (unlike npm,
 * a prerelease is not excluded from ranges naming another tuple). False for malformed input.
 *
 * @example
 * ```ts
 * satisfiesRange('1.4.0', '^1.2.0 || ^2'); // true
 * ```
 */
export function satisfiesRange(version: string, range: string): boolean {
  const parsed = parseVersion(version);
  const alternatives = parseRange(range);
  if (!parsed || !alternatives) return false;
  return alternatives.some((set) => set.every((comparator) => test(comparator, parsed)));
}
