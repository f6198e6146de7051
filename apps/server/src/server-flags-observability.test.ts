import { describe, expect, it } from 'vitest';
import { ConfigError, parseServerConfig } from './server-config';
import { DEFAULT_LOG_BUFFER_LINES } from './server-flags-observability';

const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const parsed = parseServerConfig(argv, env);
  if (parsed.action !== 'run') throw new Error('expected a run');
  return parsed.config;
};

describe('the metrics and logs flags', () => {
  it('are off, loopback-only and 2,000 lines when nothing is given', () => {
    const config = run([]);
    expect(config.metricsListen).toBeUndefined();
    expect(config.metricsPublic).toBe(false);
    expect(config.logBufferLines).toBe(DEFAULT_LOG_BUFFER_LINES);
  });

  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
    ['localhost:0', { host: 'localhost', port: 0 }],
    ['0.0.0.0:9100', { host: '0.0.0.0', port: 9100 }],
  ])('reads --metrics-listen %s', (text, address) => {
    expect(run(['--metrics-listen', text]).metricsListen).toEqual(address);
    expect(run([], { CYRNEL_METRICS_LISTEN: text }).metricsListen).toEqual(address);
  });

  it.each(['127.0.0.1', ':9464', '::1:9464', '127.0.0.1:65536', 'bad host:80', '[::1]:'])(
    'refuses --metrics-listen %s naming the flag',
    (text) => {
      expect(() => run(['--metrics-listen', text])).toThrowError(ConfigError);
      expect(() => run(['--metrics-listen', text])).toThrow(
        /invalid value for --metrics-listen: must be host:port/,
      );
    },
  );

  it('reads --metrics-public and --log-buffer-lines (0 keeps none, at most 100,000)', () => {
    expect(run(['--metrics-public']).metricsPublic).toBe(true);
    expect(run(['--log-buffer-lines', '0']).logBufferLines).toBe(0);
    expect(run([], { CYRNEL_LOG_BUFFER_LINES: '500' }).logBufferLines).toBe(500);
    expect(() => run(['--log-buffer-lines', '100001'])).toThrow(
      /--log-buffer-lines: must be between 0 and 100000/,
    );
  });

  it('reads --max-log-followers (16 unless given, at least 1)', () => {
    expect(run([]).maxLogFollowers).toBe(16);
    expect(run(['--max-log-followers', '64']).maxLogFollowers).toBe(64);
    expect(run([], { CYRNEL_MAX_LOG_FOLLOWERS: '2' }).maxLogFollowers).toBe(2);
    expect(() => run(['--max-log-followers', '10001'])).toThrow(
      /--max-log-followers: must be between 1 and 10000/,
    );
    expect(() => run(['--max-log-followers', '0'])).toThrow(
      /invalid value for --max-log-followers: must be a positive integer/,
    );
  });
});
