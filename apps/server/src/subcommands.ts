/**
 * A subcommand of the binary, `cyrnel-server <name> …`: run with the arguments after its name and
 * the environment; answers the exit code. Each one answers `--help` (or `-h`) with its usage on
 * stdout and exit code 0, wherever the flag stands (a test runs every usage line of the help).
 */
export type Subcommand = (argv: readonly string[], env: NodeJS.ProcessEnv) => Promise<number>;

/**
 * The binary's subcommands by name; anything else is the server's own flags. Each loads its module
 * only when it runs, so the server's start does not pay for them.
 *
 * @example
 * const run = SUBCOMMANDS.get(process.argv[2] ?? '');
 * if (run) process.exit(await run(process.argv.slice(3), process.env));
 */
export const SUBCOMMANDS: ReadonlyMap<string, Subcommand> = new Map<string, Subcommand>([
  ['mcp', async (argv, env) => (await import('./mcp-stdio')).runMcpStdio(argv, env)],
  ['module', async (argv) => (await import('./module-init')).runModuleCommand(argv)],
]);
