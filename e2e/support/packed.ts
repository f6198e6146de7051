import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository's root (no trailing slash). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

/**
 * The environment of a user's shell: without the `npm_*` variables that `pnpm run` sets for the
 * test (pnpm's own rc file as npm's global config, its node-gyp, its user agent), which would make
 * npm behave unlike the npm a user runs. Variables a user sets (`NPM_CONFIG_*`) are kept.
 */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('npm_')) env[name] = value;
  }
  return { ...env, npm_config_update_notifier: 'false' };
}

/**
 * `bash scripts/pack.sh <dir> --no-build` (the suite runs after `pnpm build`): every publishable
 * package packed into `dir`; answers what it printed (the lines that use the tarballs).
 */
export async function packTarballs(dir: string): Promise<string> {
  const { stdout } = await run('bash', [`${ROOT}/scripts/pack.sh`, dir, '--no-build'], {
    cwd: ROOT,
    timeout: 240_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: Error & { stderr?: string }) => {
    throw new Error(`pack.sh failed: ${error.message}\n${error.stderr ?? ''}`);
  });
  return stdout;
}

/**
 * A shell command line as a user types it (`bash -c`), in `cwd` with a user's environment, with a
 * deadline (npm asks the registry for third-party packages: a registry out of reach fails with
 * npm's own message instead of blocking the worker). Answers stdout.
 */
export async function shell(line: string, cwd: string, timeoutMs = 300_000): Promise<string> {
  const { stdout } = await run('bash', ['-c', line], {
    cwd,
    timeout: timeoutMs,
    env: userEnv(),
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(
      `${line.slice(0, 200)} failed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
  });
  return stdout;
}

/** npm's flags for the suite: quiet, one retry, a minute per request. */
export const NPM_FLAGS = '--no-audit --no-fund --loglevel=error --fetch-retries=1 --fetch-timeout=60000';
