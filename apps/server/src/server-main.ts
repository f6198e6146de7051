import { readFileSync } from 'node:fs';
import { createLogger } from './create-logger';
import { helpText } from './help-text';
import { ConfigError, parseServerConfig } from './server-config';
import type { RunningServer } from './start-server';
import { SUBCOMMANDS } from './subcommands';

/**
 * The binary's top level (`main.ts` loads it): the only place that turns errors into exit codes
 * (2 for refused configuration, 1 for failures at start, 128 + signal for a forced exit).
 * `releaseYoungGeneration` lets V8's young generation grow again: called once the server has
 * started (or before a subcommand runs), see `young-generation.ts`.
 */
export async function main(releaseYoungGeneration: () => void): Promise<void> {
  const subcommand = SUBCOMMANDS.get(process.argv[2] ?? '');
  if (subcommand) {
    releaseYoungGeneration();
    process.exit(await subcommand(process.argv.slice(3), process.env));
  }
  let parsed: ReturnType<typeof parseServerConfig>;
  try {
    parsed = parseServerConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`cyrnel-server: ${error.message}\n`);
    process.exit(2);
  }
  if (parsed.action === 'help') {
    process.stdout.write(helpText());
    return;
  }
  if (parsed.action === 'version') {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  const { config } = parsed;
  const pretty = process.stdout.isTTY === true;
  const logger = createLogger({ level: config.logLevel, pretty });
  let server: RunningServer;
  try {
    // Loaded only now, so --help and refused flags never load the database or isolated-vm.
    const { startServer } = await import('./start-server');
    server = await startServer({ ...config, logger });
    releaseYoungGeneration();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`cyrnel-server: ${error.message}\n`);
      process.exit(2);
    }
    logger.error('failed to start', { error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  // The first SIGINT/SIGTERM shuts down gracefully (runs in flight get the grace, requests are
  // answered); a second one while that waits exits at once.
  let stopping = false;
  const stop = (signal: 'SIGINT' | 'SIGTERM') => {
    const decision = stopping ? 'force' : 'stop';
    logger.info('shutdown requested', { signal, decision });
    if (stopping) {
      logger.warn('forced exit: second signal during shutdown', { signal });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    logger.info('shutting down', { signal, graceMs: config.shutdownTimeoutMs });
    server.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error('shutdown failed', { error: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
