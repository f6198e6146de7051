import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helpText } from '../src/help-text';
import { SUBCOMMANDS } from '../src/subcommands';
import { tempDir } from './helpers';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/**
 * The commands the help's usage lines name (`cyrnel-server module init <dir> …` gives
 * `['module', 'init']`, the server's own line `[]`), with every prefix (`['module']`).
 */
function usageCommands(): string[][] {
  const found = new Map<string, string[]>();
  for (const line of helpText().split('\n')) {
    const usage = /^(?:Usage:)?\s+cyrnel-server\b(.*)$/.exec(line);
    if (!usage) continue;
    const words: string[] = [];
    for (const word of (usage[1] ?? '').trim().split(/\s+/)) {
      if (!/^[a-z]+$/.test(word)) break;
      words.push(word);
    }
    for (let length = 0; length <= words.length; length++)
      found.set(words.slice(0, length).join(' '), words.slice(0, length));
  }
  return [...found.values()];
}

const cli = (args: string[], cwd?: string) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000, cwd });

describe('--help of every command', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    await dir?.remove();
  });

  it("names every subcommand in the server's usage lines, and only those", () => {
    const commands = usageCommands();
    expect(commands).toContainEqual([]);
    const named = new Set(commands.filter((words) => words.length > 0).map((words) => words[0]));
    expect([...named].sort()).toEqual([...SUBCOMMANDS.keys()].sort());
  });

  it('answers --help and -h of each command with its usage on stdout and exit code 0', () => {
    const commands = usageCommands();
    expect(commands.map((words) => words.join(' ')).sort()).toEqual(['', 'mcp', 'module', 'module init']);
    for (const words of commands) {
      for (const flag of ['--help', '-h']) {
        const result = cli([...words, flag]);
        const shown = ['cyrnel-server', ...words, flag].join(' ');
        expect({ status: result.status, stderr: result.stderr }, shown).toEqual({ status: 0, stderr: '' });
        expect(result.stdout, shown).toMatch(
          new RegExp(`^Usage: ${['cyrnel-server', ...words].join(' ')}\\b`),
        );
      }
    }
  });

  it('answers --help wherever it stands, and then does nothing else', () => {
    const init = cli(['module', 'init', 'echo-tools', '--type', 'adapter', '--help'], dir.path);
    expect(init.status).toBe(0);
    expect(init.stdout).toMatch(/^Usage: cyrnel-server module init <dir>/);
    expect(existsSync(join(dir.path, 'echo-tools'))).toBe(false);
    const bridge = cli(['mcp', '--tools', '--url', 'http://127.0.0.1:1', '--help']);
    expect(bridge.status).toBe(0);
    expect(bridge.stdout).toMatch(/^Usage: cyrnel-server mcp /);
  });

  it('still refuses an unknown flag of a subcommand with exit code 2 and the usage on stderr', () => {
    const result = cli(['module', 'init', '--colour']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("Unknown option '--colour'");
    expect(result.stderr).toContain('Usage: cyrnel-server module init');
  });
});
