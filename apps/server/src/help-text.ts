import type { FlagSpec } from './flag-spec';
import { SERVER_FLAGS } from './server-flags';

/** The default of a flag in Markdown: its value as code, what `shownDefault` says, or nothing. */
function shownDefault(spec: FlagSpec): string | undefined {
  if (spec.shownDefault !== undefined) return spec.shownDefault;
  const value = spec.default;
  if (value === undefined || typeof value === 'function' || (Array.isArray(value) && value.length === 0))
    return undefined;
  return `\`${String(value)}\``;
}

/** The bounds of a flag beyond "a positive integer", in words. */
function bounds(spec: FlagSpec): string | undefined {
  const words = [
    ...(spec.min !== undefined && spec.min > 1 ? [`at least ${spec.min}`] : []),
    ...(spec.max === undefined ? [] : [`at most ${spec.max}`]),
  ];
  return words.length === 0 ? undefined : words.join(', ');
}

/** Markdown as a terminal shows it: without the backticks of code spans. */
const plain = (markdown: string) => markdown.replaceAll('`', '');

/** The `--help` text: usage plus every flag with its environment variable, default and bounds. */
export function helpText(): string {
  const rows = SERVER_FLAGS.map((spec) => {
    const value = spec.kind === 'boolean' ? '' : ' <value>';
    const left = `  --${spec.flag}${value}`;
    const fallback = shownDefault(spec);
    const notes = [...(fallback ? [`default ${fallback}`] : []), ...(bounds(spec) ? [bounds(spec)] : [])];
    const suffix = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    return `${left.padEnd(34)} ${spec.env.padEnd(30)} ${plain(`${spec.help}${suffix}`)}`;
  });
  return [
    'Usage: cyrnel-server [flags]',
    '       cyrnel-server mcp [--url <url>] [--api-key <key>] | --embedded [--data-dir <dir>]',
    '       cyrnel-server module init <dir> --type adapter|environment [--id <id>] [--from <tarballs>]',
    '',
    'Starts the cyrnel server. Every flag can also be set with its CYRNEL_* environment',
    'variable; a flag wins over the variable. Prefer the variables for keys (flags show in ps).',
    '',
    `  ${'flag'.padEnd(32)} ${'variable'.padEnd(30)} meaning`,
    ...rows,
    `  ${'--help'.padEnd(32)} ${''.padEnd(30)} show this help`,
    `  ${'--version'.padEnd(32)} ${''.padEnd(30)} print the version`,
    '',
    'cyrnel-server mcp speaks MCP on stdin/stdout (cyrnel-server mcp --help); the server itself',
    'serves MCP over Streamable HTTP at /mcp. cyrnel-server module init --help tells what a',
    'scaffolded module holds.',
    '',
  ].join('\n');
}

/**
 * The README's flag table (Markdown): a row per flag with its variable, default and meaning (the
 * help, what the README says besides, the bounds). A test holds the README to it.
 */
export function flagTable(): string {
  const rows = SERVER_FLAGS.map((spec) => {
    const meaning = [spec.help, spec.details, bounds(spec)].filter((part) => part !== undefined).join('; ');
    return `| \`--${spec.flag}\` | \`${spec.env}\` | ${shownDefault(spec) ?? 'none'} | ${meaning} |`;
  });
  return [
    '| flag | variable | default | meaning |',
    '|---|---|---|---|',
    ...rows,
    '| `--help`, `--version` | | | |',
  ].join('\n');
}
