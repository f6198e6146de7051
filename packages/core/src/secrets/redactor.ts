/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /** Values shorter than this are not secrets worth a scan (they would mask ordinary words). Default 4. */
  readonly minLength?: number;
  /** Most characters of all remembered values together; past it the oldest owners are dropped. Default 4 Mi. */
  readonly maxTotalChars?: number;
}

/**
 * Every secret the host holds in plaintext, and their removal from text leaving the host.
 *
 * @example
 * ```ts
 * const redactor = createRedactor();
 * redactor.remember('service:github', { token: 'ghp_abc123' });
 * redactor.redact('401 for token ghp_abc123'); // '401 for token ***'
 * ```
 */
export interface Redactor {
  /** Remember the secret strings in `values` (any JSON) as `owner`'s, replacing what it had. */
  remember(owner: string, values: unknown): void;
  /** Forget `owner`'s secrets. */
  forget(owner: string): void;
  /** `text` with every remembered secret replaced by `***`. */
  redact(text: string): string;
  /** A JSON-like value with every string redacted (the same object when nothing changed). */
  redactValue<T>(value: T): T;
}

/** What a secret becomes. */
export const REDACTED = '***';

/** Strings in `value` (nested objects and arrays, bounded depth). */
function stringsOf(value: unknown, into: Set<string>, depth = 0): void {
  if (typeof value === 'string') into.add(value);
  else if (depth < 32 && typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) stringsOf(item, into, depth + 1);
}

/**
 * The forms a secret takes in text: as is, inside a JSON string (quotes and backslashes escaped,
 * as in a log line or an error body) and URL-encoded (in a query or a form).
 */
function formsOf(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1)];
  try {
    forms.push(encodeURIComponent(secret));
  } catch {
    // A lone surrogate cannot be encoded; nor can it appear encoded.
  }
  return forms;
}

/** An Aho–Corasick automaton over UTF-16 code units: every pattern found in one pass. */
interface Automaton {
  /** Code units that occur in some pattern: any other resets the scan at once. */
  readonly used: Uint8Array;
  /** The root's transitions as a table (most steps of a scan start there). */
  readonly rootNext: Int32Array;
  readonly next: Map<number, number>[];
  readonly fail: Int32Array;
  /** Length of the longest pattern ending at each state (through its failure links), or 0. */
  readonly longest: Int32Array;
}

function buildAutomaton(patterns: Iterable<string>): Automaton {
  const used = new Uint8Array(65_536);
  const next: Map<number, number>[] = [new Map()];
  const ends: number[] = [0];
  for (const pattern of patterns) {
    let state = 0;
    for (let index = 0; index < pattern.length; index++) {
      const code = pattern.charCodeAt(index);
      used[code] = 1;
      const children = next[state] as Map<number, number>;
      let child = children.get(code);
      if (child === undefined) {
        child = next.length;
        children.set(code, child);
        next.push(new Map());
        ends.push(0);
      }
      state = child;
    }
    ends[state] = pattern.length;
  }
  const fail = new Int32Array(next.length);
  const longest = new Int32Array(next.length);
  // Breadth first: a state's failure link is known before its children's.
  const queue: number[] = [];
  for (const child of (next[0] as Map<number, number>).values()) {
    queue.push(child);
    longest[child] = ends[child] as number;
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] as number;
    for (const [code, child] of next[state] as Map<number, number>) {
      let link = fail[state] as number;
      while (link !== 0 && !(next[link] as Map<number, number>).has(code)) link = fail[link] as number;
      const target = (next[link] as Map<number, number>).get(code);
      fail[child] = target !== undefined && target !== child ? target : 0;
      longest[child] = Math.max(ends[child] as number, longest[fail[child] as number] as number);
      queue.push(child);
    }
  }
  const rootNext = new Int32Array(65_536);
  for (const [code, child] of next[0] as Map<number, number>) rootNext[code] = child;
  return { used, rootNext, next, fail, longest };
}

/** The spans `[start, end)` of `text` covered by a pattern, merged, in order. */
function coveredSpans(text: string, automaton: Automaton): number[] {
  const { used, rootNext, next, fail, longest } = automaton;
  const spans: number[] = [];
  let state = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (used[code] === 0) {
      state = 0;
      continue;
    }
    for (;;) {
      if (state === 0) {
        state = rootNext[code] as number;
        break;
      }
      const to = (next[state] as Map<number, number>).get(code);
      if (to !== undefined) {
        state = to;
        break;
      }
      state = fail[state] as number;
    }
    const length = longest[state] as number;
    if (length === 0) continue;
    let start = index + 1 - length;
    const end = index + 1;
    // A longer match may start before spans already found: they merge into it.
    while (spans.length > 0 && (spans[spans.length - 1] as number) >= start) {
      start = Math.min(start, spans[spans.length - 2] as number);
      spans.length -= 2;
    }
    spans.push(start, end);
  }
  return spans;
}

/**
 * Create the host's redactor. Secrets come from where the host decrypts or receives them (the
 * secrets vault, an install request, the server's own keys); `redact` scans a text once for all of
 * them (Aho–Corasick: linear in the text whatever the number of secrets, rebuilt only when the
 * secrets change), so every error, log line and process event can go through it.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const minLength = options.minLength ?? 4;
  const maxTotalChars = options.maxTotalChars ?? 4 * 1024 * 1024;
  const owners = new Map<string, readonly string[]>();
  let automaton: Automaton | undefined;
  let empty = true;

  const rebuild = () => {
    const patterns = new Set<string>();
    for (const secrets of owners.values())
      for (const secret of secrets) for (const form of formsOf(secret)) patterns.add(form);
    empty = patterns.size === 0;
    automaton = empty ? undefined : buildAutomaton(patterns);
  };
  const total = () => {
    let chars = 0;
    for (const secrets of owners.values()) for (const secret of secrets) chars += secret.length;
    return chars;
  };

  const redact = (text: string): string => {
    if (empty || text.length < minLength) return text;
    if (!automaton) rebuild();
    if (!automaton) return text;
    const spans = coveredSpans(text, automaton);
    if (spans.length === 0) return text;
    let out = '';
    let at = 0;
    for (let index = 0; index < spans.length; index += 2) {
      out += text.slice(at, spans[index]) + REDACTED;
      at = spans[index + 1] as number;
    }
    return out + text.slice(at);
  };

  const redactValue = <T>(value: T, depth = 0): T => {
    if (empty) return value;
    if (typeof value === 'string') return redact(value) as T;
    if (depth > 64 || typeof value !== 'object' || value === null) return value;
    if (value instanceof Error) return redactValue(value.message, depth + 1) as T;
    let changed = false;
    const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
    for (const [key, item] of Object.entries(value)) {
      const redacted = redactValue(item, depth + 1);
      if (redacted !== item) changed = true;
      Object.defineProperty(copy, key, {
        value: redacted,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return changed ? (copy as T) : value;
  };

  return {
    remember(owner, values) {
      const found = new Set<string>();
      stringsOf(values, found);
      const secrets = [...found].filter((secret) => secret.length >= minLength);
      const previous = owners.get(owner);
      if (
        previous &&
        previous.length === secrets.length &&
        previous.every((secret, i) => secret === secrets[i])
      )
        return;
      owners.delete(owner);
      if (secrets.length > 0) owners.set(owner, secrets);
      // Bounded: past the budget the owners remembered longest ago go first.
      while (owners.size > 1 && total() > maxTotalChars) owners.delete(owners.keys().next().value as string);
      automaton = undefined;
      empty = owners.size === 0;
    },
    forget(owner) {
      if (!owners.delete(owner)) return;
      automaton = undefined;
      empty = owners.size === 0;
    },
    redact,
    redactValue: (value) => redactValue(value),
  };
}
