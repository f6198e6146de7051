import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseServerConfig, type ServerConfig } from './server-config';
import { helpText, SERVER_FLAGS } from './server-flags';

const KEY = Buffer.alloc(32, 7).toString('base64');

const run = (argv: string[], env: NodeJS.ProcessEnv = {}): ServerConfig => {
  const parsed = parseServerConfig(argv, env);
  if (parsed.action !== 'run') throw new Error(`expected run, got ${parsed.action}`);
  return parsed.config;
};

describe('parseServerConfig', () => {
  it('applies the defaults of SPEC §7 and §9', () => {
    expect(run([])).toMatchObject({
      port: 9371,
      host: '127.0.0.1',
      dataDir: join(homedir(), '.cyrnel'),
      databasePath: join(homedir(), '.cyrnel', 'data.db'),
      apiKey: undefined,
      insecure: false,
      logLevel: 'info',
      maxBodyBytes: 64 * 1024 * 1024,
      maxLiveProcesses: 1000,
      shutdownTimeoutMs: 10_000,
      allowPrivateUrls: false,
      urlAllowCidrs: [],
      urlDenyCidrs: [],
    });
  });

  it('reads CYRNEL_* variables and lets flags win, in both --flag value and --flag=value forms', () => {
    const config = run(['--port', '8080', '--log-level=debug', '--insecure', '--data-dir', '/tmp/x'], {
      CYRNEL_PORT: '1234',
      CYRNEL_HOST: '0.0.0.0',
      CYRNEL_API_KEY: 'k',
      CYRNEL_SECRETS_KEY: KEY,
      CYRNEL_URL_ALLOW_CIDRS: '127.0.0.0/8, ::1/128',
      CYRNEL_ALLOW_PRIVATE_URLS: 'true',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      apiKey: 'k',
      secretsKey: KEY,
      logLevel: 'debug',
      insecure: true,
      dataDir: '/tmp/x',
      databasePath: '/tmp/x/data.db',
      urlAllowCidrs: ['127.0.0.0/8', '::1/128'],
      allowPrivateUrls: true,
    });
  });

  it('accepts sqlite: database URLs and refuses every other scheme', () => {
    expect(run(['--database-url', 'sqlite:/var/db/c.db']).databasePath).toBe('/var/db/c.db');
    expect(run(['--database-url', 'sqlite:///var/db/c.db']).databasePath).toBe('/var/db/c.db');
    expect(() => run(['--database-url', 'postgres://u@h/db'])).toThrow(/--database-url.*only sqlite/);
  });

  it.each([
    [['--port', '70000'], /--port/],
    [['--port', 'abc'], /--port/],
    [['--max-body-bytes', '0'], /--max-body-bytes/],
    [['--shutdown-timeout-ms', '1.5'], /--shutdown-timeout-ms/],
    [['--log-level', 'loud'], /--log-level/],
    [['--insecure=yes'], /--insecure/],
    [['--secrets-key', 'c2hvcnQ='], /--secrets-key/],
    [['--url-deny-cidrs', '10.0.0.0/99'], /--url-deny-cidrs/],
    [['--nope'], /unknown flag --nope/],
    [['--port'], /--port needs a value/],
    [['stray'], /unexpected argument/],
  ])('refuses %j naming the flag', (argv, message) => {
    expect(() => run(argv)).toThrowError(ConfigError);
    expect(() => run(argv)).toThrow(message);
  });

  it('names the variable when the bad value came from the environment', () => {
    expect(() => run([], { CYRNEL_MAX_LIVE_PROCESSES: '-3' })).toThrow(/CYRNEL_MAX_LIVE_PROCESSES/);
  });

  it('recognises --help and --version', () => {
    expect(parseServerConfig(['--port', '1', '--help'], {})).toEqual({ action: 'help' });
    expect(parseServerConfig(['--version'], {})).toEqual({ action: 'version' });
  });
});

describe('helpText', () => {
  it('lists every flag with its variable', () => {
    const text = helpText();
    for (const spec of SERVER_FLAGS) {
      expect(text).toContain(`--${spec.flag}`);
      expect(text).toContain(spec.env);
    }
  });
});
