import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flagTable, helpText } from './help-text';
import { SERVER_FLAGS, SERVER_SETTINGS } from './server-flags';

const README = new URL('../README.md', import.meta.url);

describe('helpText', () => {
  it('lists every flag with its variable and help', () => {
    const text = helpText();
    for (const spec of SERVER_FLAGS) {
      const row = text.split('\n').find((line) => line.startsWith(`  --${spec.flag} `));
      expect(row).toContain(spec.env);
      expect(row).toContain(spec.help.replaceAll('`', ''));
    }
  });

  it('shows defaults and bounds as the settings declare them', () => {
    const row = (flag: string) =>
      helpText()
        .split('\n')
        .find((line) => line.startsWith(`  --${flag} `));
    expect(row('port')).toMatch(/\(default 9371\)$/);
    expect(row('max-live-processes')).toMatch(/\(default 1000\)$/);
    expect(row('host-slots')).toMatch(/\(default 32\)$/);
    expect(row('max-output-bytes')).toMatch(/\(default 4194304; at least 2\)$/);
    expect(row('download-timeout-ms')).toMatch(/\(default 30000; at most 2147483647\)$/);
    expect(row('auto-update-interval-ms')).toMatch(/\(default never; at most 2147483647\)$/);
    expect(row('data-dir')).toMatch(/\(default ~\/\.cyrnel\)$/);
    expect(row('insecure')).toMatch(/^ {2}--insecure {2,}CYRNEL_INSECURE .*\(default false\)$/);
    // No default to show: a key is never defaulted.
    expect(row('api-key')).not.toContain('default');
  });

  it('names the mcp subcommand and the /mcp endpoint', () => {
    const text = helpText();
    expect(text).toContain('cyrnel-server mcp [--url <url>]');
    expect(text).toContain('/mcp');
  });
});

describe("the README's flag table", () => {
  it('is the table of SERVER_SETTINGS', () => {
    const readme = readFileSync(README, 'utf8');
    const start = readme.indexOf('| flag | variable | default | meaning |');
    const end = readme.indexOf('\n\n', start);
    const expected = flagTable();
    expect(
      readme.slice(start, end),
      `apps/server/README.md, section "Flags", should hold this table:\n\n${expected}\n`,
    ).toBe(expected);
  });

  it('gives each default as written in the settings', () => {
    const table = flagTable();
    expect(table).toContain(
      `| \`--max-live-processes\` | \`CYRNEL_MAX_LIVE_PROCESSES\` | \`${SERVER_SETTINGS.maxLiveProcesses.default}\` |`,
    );
    expect(table).toContain('| `--api-key` | `CYRNEL_API_KEY` | none |');
    expect(table).toContain('| `--url-deny-cidrs` | `CYRNEL_URL_DENY_CIDRS` | none |');
  });
});
