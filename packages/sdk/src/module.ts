import type { AdapterCredentials } from './adapter-credentials';
import type { OutboundPolicy } from './outbound-policy';

/** A minimal structured logger handed to modules. Never pass secrets to it. */
export interface ModuleLogger {
  /** Verbose diagnostics. */
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Normal operation. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something unexpected that the module recovered from. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** A failure. */
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What every module receives in `setup`. */
export interface ModuleSetupContext {
  /** Module configuration, validated against the module's `configSchema`, defaults applied. */
  config: Record<string, unknown>;
  /** Decrypted module secrets, validated against `secretsSchema`. Never log them. */
  secrets: Record<string, unknown>;
  /** Logger scoped to the module. */
  logger: ModuleLogger;
  /**
   * Where outbound connections may go (optional: absent when the embedder set
   * no policy, then nothing is checked). Modules that connect on behalf of agent code call
   * `outbound.check(address, port, hostname)` before every connection they open.
   */
  outbound?: OutboundPolicy;
  /**
   * The host's budget of one tool answer in bytes (optional): an adapter stops reading an
   * upstream answer past it and fails the call with `upstream_answer_too_large`, instead of
   * holding bytes the host would refuse anyway. The egress gateway sets it.
   */
  answerBytes?: number;
  /**
   * What an adapter may tell the host about its services (absent for environments).
   */
  services?: ServiceEvents;
  /**
   * Per-connection credentials for adapters that sign in themselves (absent for environments,
   * and when the host offers none).
   */
  credentials?: AdapterCredentials;
}

/**
 * Reports from an adapter to the host about the services it holds.
 *
 * @example
 * ```ts
 * // An MCP server announced `notifications/tools/list_changed` for service `docs`:
 * context.services?.toolsChanged('docs'); // the host calls refreshDefinition and stores it
 * ```
 */
export interface ServiceEvents {
  /**
   * The tools of service `serviceId` changed: the host calls the adapter's `refreshDefinition`
   * for it and stores the answer. Fire and forget; failures are logged, never thrown here.
   */
  toolsChanged(serviceId: string): void;
}

/** The lifecycle every module shares: `setup` on activation, `teardown` on deactivation. */
export interface Module {
  /** Called once when the module is activated (again after a teardown). */
  setup(context: ModuleSetupContext): Promise<void>;
  /** Called when the module is deactivated; release every resource. */
  teardown(): Promise<void>;
}
