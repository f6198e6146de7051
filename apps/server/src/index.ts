export { assertSafeBind, isLoopbackHost } from './assert-safe-bind';
export {
  type CreateLoggerOptions,
  createLogger,
  LOG_LEVELS,
  type LogFields,
  type LogLevel,
  type ServerLogger,
} from './create-logger';
export { type DatabaseTarget, parseDatabaseUrl } from './database-url';
export { isSecretsKey } from './flag-checks';
export type { DefaultContext, FlagDefault, FlagKind, FlagSpec } from './flag-spec';
export { helpText } from './help-text';
export { ConfigError, type ParsedCommandLine, parseServerConfig, resolveServerConfig } from './server-config';
export { SERVER_FLAGS, SERVER_SETTINGS, type ServerConfig } from './server-flags';
export { type RunningServer, type StartServerOptions, startServer } from './start-server';
