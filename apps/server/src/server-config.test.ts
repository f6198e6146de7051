import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_HOST_SLOTS,
  DEFAULT_POLICY,
  DEFAULT_PROCESS_LIMITS,
  parseDefaultPolicy,
} from '@cyrnel/core';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseServerConfig, resolveServerConfig } from './server-config';
import { defaultHostId, SERVER_FLAGS, SERVER_SETTINGS, type ServerConfig } from './server-flags';

const KEY = Buffer.alloc(32, 7).toString('base64');

const run = (argv: string[], env: NodeJS.ProcessEnv = {}): ServerConfig => {
  const parsed = parseServerConfig(argv, env);
  if (parsed.action !== 'run') throw new Error(`expected run, got ${parsed.action}`);
  return parsed.config;
};

describe('parseServerConfig', () => {
  it('applies the documented defaults when no flag or variable is given', () => {
    expect(run([])).toEqual({
      port: 9371,
      host: '127.0.0.1',
      dataDir: join(homedir(), '.cyrnel'),
      database: { kind: 'sqlite', path: join(homedir(), '.cyrnel', 'data.db') },
      apiKey: undefined,
      insecure: false,
      noUi: false,
      noDirectToolCalls: false,
      egressWorkers: 2,
      egressAnswerBytes: 64 * 1024 * 1024,
      hostId: defaultHostId(join(homedir(), '.cyrnel')),
      hostSlots: 32,
      secretsKey: undefined,
      secretsPreviousKeys: [],
      logLevel: 'info',
      defaultPolicy: 'default=ask,readOnly=allow',
      approvalTimeoutMs: 600_000,
      maxBodyBytes: 64 * 1024 * 1024,
      maxDefinitionBytes: 64 * 1024 * 1024,
      downloadTimeoutMs: 30_000,
      maxCodeBytes: 100 * 1024,
      maxStdoutBytes: 1024 * 1024,
      maxStderrBytes: 1024 * 1024,
      maxOutputBytes: 4 * 1024 * 1024,
      maxLiveProcesses: 1000,
      maxProcessesPerKey: 100,
      maxStoredBytesPerKey: 256 * 1024 * 1024,
      processRetention: 7 * 24 * 3_600_000,
      processRetentionCount: 10_000,
      rateLimit: 20,
      rateLimitBurst: 100,
      maxTimeoutMs: 300_000,
      shutdownTimeoutMs: 10_000,
      allowPrivateUrls: false,
      urlAllowCidrs: [],
      urlDenyCidrs: [],
      otel: undefined,
      otelArgumentShapes: false,
      maxJsonDepth: 64,
      maxJsonElements: 50_000,
      maxEnvConfigBytes: 64 * 1024,
      maxEventStreams: 256,
      maxEventQueueBytes: 32 * 1024 * 1024,
      maxEventBufferBytes: 256 * 1024 * 1024,
      allowedHosts: [],
      allowedOrigins: [],
      registries: [],
      npmRegistry: 'https://registry.npmjs.org',
      autoUpdateIntervalMs: undefined,
      metricsListen: undefined,
      metricsPublic: false,
      logBufferLines: 2000,
      maxLogFollowers: 16,
    });
  });

  it("takes the core's own defaults for the core's limits, so each number is written once", () => {
    const config = run([]);
    expect(config.hostSlots).toBe(DEFAULT_HOST_SLOTS);
    expect(parseDefaultPolicy(config.defaultPolicy)).toEqual(DEFAULT_POLICY);
    expect(config.approvalTimeoutMs).toBe(DEFAULT_APPROVAL_TIMEOUT_MS);
    expect(config).toMatchObject({
      maxCodeBytes: DEFAULT_PROCESS_LIMITS.maxCodeBytes,
      maxStdoutBytes: DEFAULT_PROCESS_LIMITS.maxStdoutBytes,
      maxStderrBytes: DEFAULT_PROCESS_LIMITS.maxStderrBytes,
      maxOutputBytes: DEFAULT_PROCESS_LIMITS.maxOutputBytes,
      maxEnvConfigBytes: DEFAULT_PROCESS_LIMITS.maxEnvConfigBytes,
      maxLiveProcesses: DEFAULT_PROCESS_LIMITS.maxLiveProcesses,
      maxProcessesPerKey: DEFAULT_PROCESS_LIMITS.maxLiveProcessesPerKey,
      maxTimeoutMs: DEFAULT_PROCESS_LIMITS.maxTimeoutMs,
    });
  });

  it('reads the host-boundary limits and allow-lists (JSON bodies, event streams, Host and Origin)', () => {
    const config = run(
      [
        '--max-json-depth',
        '16',
        '--max-json-elements=2000',
        '--max-env-config-bytes=1024',
        '--allowed-hosts',
        'cyrnel.internal, .corp.example',
      ],
      {
        CYRNEL_MAX_EVENT_STREAMS: '8',
        CYRNEL_MAX_EVENT_QUEUE_BYTES: '4096',
        CYRNEL_MAX_EVENT_BUFFER_BYTES: '65536',
        CYRNEL_ALLOWED_ORIGINS: 'https://ui.example.com,http://127.0.0.1:5173',
      },
    );
    expect(config).toMatchObject({
      maxJsonDepth: 16,
      maxJsonElements: 2000,
      maxEnvConfigBytes: 1024,
      maxEventStreams: 8,
      maxEventQueueBytes: 4096,
      maxEventBufferBytes: 65536,
      allowedHosts: ['cyrnel.internal', '.corp.example'],
      allowedOrigins: ['https://ui.example.com', 'http://127.0.0.1:5173'],
    });
    expect(run(['--allowed-hosts', '*', '--allowed-origins', '*'])).toMatchObject({
      allowedHosts: ['*'],
      allowedOrigins: ['*'],
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
      database: { kind: 'sqlite', path: '/tmp/x/data.db' },
      urlAllowCidrs: ['127.0.0.0/8', '::1/128'],
      allowPrivateUrls: true,
    });
  });

  it('reads every limit from its flag or variable', () => {
    const config = run(
      [
        '--max-code-bytes',
        '2048',
        '--max-stdout-bytes=10',
        '--max-output-bytes',
        '2',
        '--download-timeout-ms',
        '2147483647',
      ],
      {
        CYRNEL_MAX_STDERR_BYTES: '20',
        CYRNEL_MAX_DEFINITION_BYTES: '4096',
        CYRNEL_MAX_CODE_BYTES: '1',
        CYRNEL_SHUTDOWN_TIMEOUT_MS: '500',
      },
    );
    expect(config).toMatchObject({
      maxCodeBytes: 2048,
      maxStdoutBytes: 10,
      maxStderrBytes: 20,
      maxOutputBytes: 2,
      maxDefinitionBytes: 4096,
      downloadTimeoutMs: 2_147_483_647,
      shutdownTimeoutMs: 500,
    });
  });

  it('accepts IP addresses and host names for --host, bracketed IPv6 unwrapped', () => {
    expect(run(['--host', '0.0.0.0']).host).toBe('0.0.0.0');
    expect(run(['--host', '[::1]']).host).toBe('::1');
    expect(run(['--host', '::']).host).toBe('::');
    expect(run(['--host', 'localhost']).host).toBe('localhost');
    expect(run([], { CYRNEL_HOST: 'api.internal-1.example' }).host).toBe('api.internal-1.example');
  });

  it('accepts sqlite: and file: database URLs and refuses every other scheme', () => {
    const path = (url: string) => run(['--database-url', url]).database;
    expect(path('sqlite:/var/db/c.db')).toEqual({ kind: 'sqlite', path: '/var/db/c.db' });
    expect(path('sqlite:///var/db/c.db')).toEqual({ kind: 'sqlite', path: '/var/db/c.db' });
    expect(path('file:///var/db/c.db')).toEqual({ kind: 'sqlite', path: '/var/db/c.db' });
    expect(path('SQLite:c.db')).toEqual({ kind: 'sqlite', path: join(process.cwd(), 'c.db') });
    expect(path('file:db/c.db')).toEqual({ kind: 'sqlite', path: join(process.cwd(), 'db', 'c.db') });
    expect(path('sqlite:~/c.db')).toEqual({ kind: 'sqlite', path: join(homedir(), 'c.db') });
    expect(run([], { CYRNEL_DATABASE_URL: 'sqlite:/e.db' }).database).toEqual({
      kind: 'sqlite',
      path: '/e.db',
    });
    expect(run(['--database-url', 'postgres://u@h/db']).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
    });
    expect(run([], { CYRNEL_DATABASE_URL: 'postgresql://h:5433/cyrnel' }).database).toEqual({
      kind: 'postgres',
      url: 'postgresql://h:5433/cyrnel',
    });
    expect(() => run(['--database-url', 'postgres://h'])).toThrow('a postgres:// URL must name the database');
    expect(() => run(['--database-url', 'mysql://h/db'])).toThrow(
      'invalid value for --database-url: must be sqlite:<path>, file:<path> or postgres://… (got a "mysql:" URL)',
    );
    expect(() => run(['--database-url', '/var/db/c.db'])).toThrow(/got no scheme/);
    expect(() => run(['--database-url', 'sqlite://host/c.db'])).toThrow(
      /sqlite:\/\/ must be followed by an absolute path/,
    );
    expect(() => run(['--database-url', 'sqlite:'])).toThrow(/sqlite: needs a file path/);
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
    [['--host', 'not a host'], /invalid value for --host: must be an IP address or a host name/],
    [['--host', '300.1.1.1'], /--host/],
    [['--host', '-bad.example'], /--host/],
    [['--host', '[localhost]'], /--host/],
    [['--host', 'http://127.0.0.1'], /--host/],
    [['--max-code-bytes', '0'], /--max-code-bytes: must be a positive integer/],
    [['--max-stdout-bytes', '1e6'], /--max-stdout-bytes/],
    [['--max-stderr-bytes', '-1'], /--max-stderr-bytes/],
    [['--max-output-bytes', '1'], /--max-output-bytes: must be between 2 and/],
    [['--max-definition-bytes', 'lots'], /--max-definition-bytes/],
    [['--download-timeout-ms', '2147483648'], /--download-timeout-ms: must be between 1 and 2147483647/],
    [['--shutdown-timeout-ms', '9999999999'], /--shutdown-timeout-ms/],
    [['--max-timeout-ms', '2147483648'], /--max-timeout-ms: must be between 1 and 2147483647/],
    [['--max-json-depth', '0'], /--max-json-depth/],
    [['--max-json-depth', '10001'], /--max-json-depth: must be between 1 and 10000/],
    [['--max-env-config-bytes', '1'], /--max-env-config-bytes: must be between 2 and/],
    [['--max-event-streams', '-1'], /--max-event-streams/],
    [['--max-event-buffer-bytes', 'lots'], /--max-event-buffer-bytes/],
    [['--allowed-hosts', 'evil host'], /--allowed-hosts: "evil host" is not a host name/],
    [['--allowed-hosts', 'http://x.example'], /--allowed-hosts/],
    [['--allowed-origins', 'ui.example.com'], /--allowed-origins: "ui.example.com" is not an origin/],
    [['--allowed-origins', 'https://ui.example.com/app'], /--allowed-origins/],
    [['--allowed-origins', 'file:///x'], /--allowed-origins/],
    [['--host-slots', '0'], /invalid value for --host-slots: must be a positive integer/],
    [['--max-live-processes', '1.0'], /invalid value for --max-live-processes: must be a positive integer/],
    [['--max-processes-per-key', '9007199254740992'], /--max-processes-per-key: must be a positive integer/],
    [
      ['--auto-update-interval-ms', '2147483648'],
      /--auto-update-interval-ms: must be between 1 and 2147483647/,
    ],
    [['--data-dir', ' '], /invalid value for --data-dir: must not be empty/],
    [['--api-key='], /invalid value for --api-key: must not be empty/],
    [['--host-id', ''], /invalid value for --host-id: must not be empty/],
    [['--npm-registry', 'ftp://npm.example'], /invalid value for --npm-registry: must be an http\(s\) URL/],
    [
      ['--registries', 'https://r.example, nope'],
      /invalid value for --registries: "nope" is not an http\(s\) URL/,
    ],
    [
      ['--secrets-previous-keys', `${KEY},short`],
      /invalid value for --secrets-previous-keys: every key must be base64 of 32 bytes$/,
    ],
    [['--url-allow-cidrs', 'nonsense'], /invalid value for --url-allow-cidrs: /],
    [['--no-ui=maybe'], /invalid value for --no-ui: must be true or false/],
    [
      ['--log-level', 'loud'],
      /invalid value for --log-level: must be one of debug, info, warn, error, silent/,
    ],
    [['--port', '65536'], /invalid value for --port: must be a port number 0..65535/],
    [['--database-url', ''], /invalid value for --database-url: must be sqlite:<path>/],
    [
      ['--default-policy', 'sometimes'],
      /^invalid value for --default-policy: has a part that is not name=policy: sometimes$/,
    ],
    [
      ['--default-policy', 'default=maybe'],
      /^invalid value for --default-policy: default is not a policy: "maybe" \(one of 'allow', 'ask', 'block'\)$/,
    ],
    [
      ['--default-policy', 'readOnly=allow,fast=block'],
      /^invalid value for --default-policy: names neither 'default' nor an annotation: fast/,
    ],
    [['--default-policy', ' '], /invalid value for --default-policy: must not be empty/],
    [['--approval-timeout', '0'], /invalid value for --approval-timeout: must be a positive integer/],
    [['--nope'], /unknown flag --nope/],
    [['--port'], /--port needs a value/],
    [['stray'], /unexpected argument/],
    [['-x'], /unknown flag -x/],
    [['--insecure', 'true'], /unexpected argument "true"/],
  ])('refuses %j naming the flag', (argv, message) => {
    expect(() => run(argv)).toThrowError(ConfigError);
    expect(() => run(argv)).toThrow(message);
  });

  it('names the variable when the bad value came from the environment', () => {
    expect(() => run([], { CYRNEL_MAX_LIVE_PROCESSES: '-3' })).toThrow(/CYRNEL_MAX_LIVE_PROCESSES/);
    expect(() => run([], { CYRNEL_HOST: 'bad_host' })).toThrow(/CYRNEL_HOST/);
    expect(() => run([], { CYRNEL_MAX_OUTPUT_BYTES: '1' })).toThrow(/CYRNEL_MAX_OUTPUT_BYTES/);
    expect(() => run([], { CYRNEL_HOST_SLOTS: 'many' })).toThrow(
      'invalid value for CYRNEL_HOST_SLOTS: must be a positive integer',
    );
    expect(() => run([], { CYRNEL_SECRETS_KEY: 'c2hvcnQ=' })).toThrow(
      'invalid value for CYRNEL_SECRETS_KEY: must be base64 of 32 bytes',
    );
  });

  it('reads the default policy and the approval timeout', () => {
    expect(run(['--default-policy', 'allow', '--approval-timeout', '30000'])).toMatchObject({
      defaultPolicy: 'allow',
      approvalTimeoutMs: 30_000,
    });
    expect(
      run([], { CYRNEL_DEFAULT_POLICY: 'default=ask, readOnly=allow, destructive=block' }).defaultPolicy,
    ).toBe('default=ask, readOnly=allow, destructive=block');
    expect(() => run([], { CYRNEL_DEFAULT_POLICY: 'block,' })).toThrow(
      /^invalid value for CYRNEL_DEFAULT_POLICY: /,
    );
  });

  it('ignores empty variables, and names the flag when a flag overrides a bad variable', () => {
    expect(run([], { CYRNEL_PORT: '', CYRNEL_HOST_SLOTS: '' })).toMatchObject({ port: 9371, hostSlots: 32 });
    expect(run(['--host-slots', '4'], { CYRNEL_HOST_SLOTS: 'many' }).hostSlots).toBe(4);
    expect(() => run(['--host-slots', 'x'], { CYRNEL_HOST_SLOTS: '4' })).toThrow(
      'invalid value for --host-slots',
    );
  });

  it('reads the several-hosts, registry and switch settings', () => {
    expect(
      run(['--host-id', 'a-1', '--no-ui', '--no-direct-tool-calls=true'], {
        CYRNEL_HOST_SLOTS: '2',
        CYRNEL_REGISTRIES: 'https://r.example, http://127.0.0.1:8080/registry.json',
        CYRNEL_NPM_REGISTRY: 'http://127.0.0.1:4873',
        CYRNEL_AUTO_UPDATE_INTERVAL_MS: '60000',
        CYRNEL_SECRETS_PREVIOUS_KEYS: ` ${KEY} ,${KEY}`,
      }),
    ).toMatchObject({
      hostId: 'a-1',
      hostSlots: 2,
      noUi: true,
      noDirectToolCalls: true,
      registries: ['https://r.example', 'http://127.0.0.1:8080/registry.json'],
      npmRegistry: 'http://127.0.0.1:4873',
      autoUpdateIntervalMs: 60_000,
      secretsPreviousKeys: [KEY, KEY],
    });
  });

  it('recognises --help and --version', () => {
    expect(parseServerConfig(['--port', '1', '--help'], {})).toEqual({ action: 'help' });
    expect(parseServerConfig(['--version'], {})).toEqual({ action: 'version' });
    expect(parseServerConfig(['-h'], {})).toEqual({ action: 'help' });
    expect(parseServerConfig(['-v'], {})).toEqual({ action: 'version' });
  });

  it('reads the maximum process timeout from --max-timeout-ms or CYRNEL_MAX_TIMEOUT_MS', () => {
    expect(run([], { CYRNEL_MAX_TIMEOUT_MS: '60000' }).maxTimeoutMs).toBe(60_000);
    expect(run(['--max-timeout-ms=2147483647'], { CYRNEL_MAX_TIMEOUT_MS: '60000' }).maxTimeoutMs).toBe(
      2_147_483_647,
    );
  });
});

describe('resolveServerConfig', () => {
  it('fills every setting left out, or undefined, with the same default as the command line', () => {
    expect(resolveServerConfig({})).toEqual(run([]));
    expect(resolveServerConfig({ port: undefined, maxLiveProcesses: 5 })).toEqual({
      ...run([]),
      maxLiveProcesses: 5,
    });
  });

  it('computes the database and the host id from the data directory given', () => {
    expect(resolveServerConfig({ dataDir: '/srv/cyrnel' })).toMatchObject({
      dataDir: '/srv/cyrnel',
      database: { kind: 'sqlite', path: '/srv/cyrnel/data.db' },
      hostId: defaultHostId('/srv/cyrnel'),
    });
    expect(
      resolveServerConfig({ dataDir: '/srv/cyrnel', database: { kind: 'postgres', url: 'postgres://h/db' } })
        .database,
    ).toEqual({ kind: 'postgres', url: 'postgres://h/db' });
  });
});

describe('SERVER_SETTINGS', () => {
  it('gives every setting its own flag and variable, named alike', () => {
    const flags = SERVER_FLAGS.map((spec) => spec.flag);
    expect(new Set(flags).size).toBe(flags.length);
    for (const spec of SERVER_FLAGS)
      expect(spec.env).toBe(`CYRNEL_${spec.flag.toUpperCase().replaceAll('-', '_')}`);
    expect(SERVER_FLAGS).toEqual(Object.values(SERVER_SETTINGS));
  });

  it('covers every configurable limit of the process manager and the HTTP layer', () => {
    const flags = SERVER_FLAGS.map((spec) => spec.flag);
    expect(flags).toEqual(
      expect.arrayContaining([
        'max-body-bytes',
        'max-definition-bytes',
        'download-timeout-ms',
        'max-code-bytes',
        'max-stdout-bytes',
        'max-stderr-bytes',
        'max-output-bytes',
        'max-live-processes',
        'max-processes-per-key',
        'max-timeout-ms',
        'max-json-depth',
        'max-json-elements',
        'max-env-config-bytes',
        'max-event-streams',
        'max-event-queue-bytes',
        'max-event-buffer-bytes',
        'shutdown-timeout-ms',
        'host-slots',
      ]),
    );
  });
});
