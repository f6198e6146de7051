export { assertSafeBind, isLoopbackHost } from './assert-safe-bind';
export { type CreateLoggerOptions, createLogger, type LogFields, type ServerLogger } from './create-logger';
export { type DatabaseTarget, parseDatabaseUrl } from './database-url';
export {
  ConfigError,
  isSecretsKey,
  LOG_LEVELS,
  type LogLevel,
  type ParsedCommandLine,
  parseServerConfig,
  type ServerConfig,
} from './server-config';
export { type FlagSpec, helpText, SERVER_FLAGS } from './server-flags';
export { type RunningServer, type StartServerOptions, startServer } from './start-server';
