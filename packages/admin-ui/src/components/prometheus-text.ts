/** One sample of the Prometheus text format: a metric name, its labels and its value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** A sample value: a decimal number, `NaN`, `+Inf` or `-Inf`; undefined when it is none of them. */
function parseValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** The labels of `line` from its `{`: the labels and where they end, or undefined when malformed. */
function parseLabels(
  line: string,
  start: number,
): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {};
  let at = start + 1;
  for (;;) {
    while (line[at] === ' ' || line[at] === ',') at++;
    if (line[at] === '}') return { labels, end: at + 1 };
    const name = LABEL_NAME.exec(line.slice(at))?.[0];
    if (!name) return undefined;
    at += name.length;
    while (line[at] === ' ') at++;
    if (line[at] !== '=') return undefined;
    at++;
    while (line[at] === ' ') at++;
    if (line[at] !== '"') return undefined;
    at++;
    let value = '';
    for (;;) {
      const char = line[at];
      if (char === undefined) return undefined;
      at++;
      if (char === '"') break;
      if (char === '\\') {
        const escaped = line[at];
        at++;
        value += escaped === 'n' ? '\n' : escaped === undefined ? '' : escaped;
      } else value += char;
    }
    labels[name] = value;
  }
}

/**
 * The samples of a Prometheus text exposition (`GET /metrics`): one per line that is neither empty
 * nor a comment (`# HELP`, `# TYPE`). Label values are unescaped (`\\`, `\"`, `\n`); a timestamp
 * after the value is ignored; a line that does not parse is skipped (a scrape is never refused
 * for one line).
 *
 * @example
 * ```ts
 * parseMetrics('cyrnel_processes{state="running"} 2\n');
 * // [{ name: 'cyrnel_processes', labels: { state: 'running' }, value: 2 }]
 * ```
 */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const name = NAME.exec(line)?.[0];
    if (!name) continue;
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      const parsed = parseLabels(rest, 0);
      if (!parsed) continue;
      labels = parsed.labels;
      rest = rest.slice(parsed.end);
    }
    const [valueText] = rest.trim().split(/\s+/);
    const value = parseValue(valueText ?? '');
    if (value === undefined) continue;
    samples.push({ name, labels, value });
  }
  return samples;
}

/**
 * The samples named `name` summed by the values of `keys` (the other labels summed away), largest
 * first: `sumBy(samples, 'cyrnel_tool_calls_total', ['service', 'tool'])`.
 */
export function sumBy(
  samples: readonly Sample[],
  name: string,
  keys: readonly string[],
): { labels: Record<string, string>; value: number }[] {
  const groups = new Map<string, { labels: Record<string, string>; value: number }>();
  for (const sample of samples) {
    if (sample.name !== name) continue;
    const labels = Object.fromEntries(keys.map((key) => [key, sample.labels[key] ?? '']));
    const id = JSON.stringify(keys.map((key) => labels[key]));
    const group = groups.get(id);
    if (group) group.value += sample.value;
    else groups.set(id, { labels, value: sample.value });
  }
  return [...groups.values()].sort((a, b) => b.value - a.value);
}

/** The sum of the samples named `name`, or undefined when there is none. */
export function total(samples: readonly Sample[], name: string): number | undefined {
  const found = samples.filter((sample) => sample.name === name);
  return found.length === 0 ? undefined : found.reduce((sum, sample) => sum + sample.value, 0);
}

/**
 * The per-second rate of a counter between two scrapes `seconds` apart; undefined without an
 * earlier value or time, and 0 after a reset (the counter went down: the server restarted).
 */
export function ratePerSecond(now: number, before: number | undefined, seconds: number): number | undefined {
  if (before === undefined || !(seconds > 0)) return undefined;
  return now >= before ? (now - before) / seconds : 0;
}
