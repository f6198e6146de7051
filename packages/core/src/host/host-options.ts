import type { BuiltinModule, ModuleLogger, OutboundPolicy } from '@cyrnel/sdk';
import type { ApprovalStorage } from '../approvals/approval-storage';
import type { CatalogStorage } from '../catalog/catalog-storage';
import type { KeyStorage } from '../keys/key-storage';
import type { HostMetrics } from '../metrics/host-metrics';
import type { DefaultPolicy } from '../policies/policy-input';
import type { ProcessLimits } from '../processes/process-limits';
import type { ProcessStorage } from '../processes/process-storage';
import type { Redactor } from '../secrets/redactor';
import type { HostSignals } from '../several-hosts/host-signals';
import type { TracingOptions } from '../telemetry/tracing';
import type { SchemaCheckerOptions } from '../validation/schema-checker';

/** The storage ports the host needs (a `Store` of `@cyrnel/store`: `openSqliteStore()` of `@cyrnel/store/sqlite` returns one). */
export interface HostStorage {
  readonly catalog: CatalogStorage;
  readonly processes: ProcessStorage;
  /** Approvals and plans (default: in memory; several hosts need the shared store's). */
  readonly approvals?: ApprovalStorage;
  /** API keys: the policies read each key's scope and policy from here (absent: no key has any). */
  readonly keys?: KeyStorage;
  /** Wake-ups between hosts sharing the storage (PostgreSQL's LISTEN/NOTIFY); absent: polls only. */
  readonly signals?: HostSignals;
}

/** Where services and modules are installed from. */
export interface RegistryOptions {
  /** Registries (base URLs or metadata URLs) searched in order for bare service names. */
  readonly urls?: readonly string[];
  /** Base URL of the npm registry modules are installed from. Default `https://registry.npmjs.org`. */
  readonly npmRegistry?: string;
  /**
   * Where registry and npm downloads may connect (default: `CreateHostOptions.outbound`, and
   * nothing checked without one).
   */
  readonly outbound?: OutboundPolicy;
  /** Largest download (metadata, definition, archive) in bytes. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Deadline of one download. Default 30 s. */
  readonly timeoutMs?: number;
  /**
   * Every this many ms, update the modules whose `autoUpdate` is on, then every registry-installed
   * service. Default: never.
   */
  readonly autoUpdateIntervalMs?: number;
}

/** Options of {@link createHost}. */
export interface CreateHostOptions {
  /**
   * What agent code may do: the server's default policy (out of the box read-only tools `allow`,
   * every other tool `ask`) and how long an approval waits for a person (default 10 min).
   */
  readonly policies?: {
    readonly default?: DefaultPolicy;
    readonly approvalTimeoutMs?: number;
  };
  readonly storage: HostStorage;
  /** Built-in modules, registered before custom ones (they win id collisions). */
  readonly builtins?: readonly BuiltinModule[];
  /** The data directory; custom modules are scanned in `$dataDir/modules`. */
  readonly dataDir?: string;
  /** Overrides `$dataDir/modules`. */
  readonly modulesDir?: string;
  /** 32-byte secrets key (raw or base64); see `loadSecretsKey`. */
  readonly secretsKey: Uint8Array | string;
  /** Keys that still decrypt; records read with them are re-encrypted with `secretsKey`. */
  readonly previousSecretsKeys?: readonly (Uint8Array | string)[];
  readonly logger?: ModuleLogger;
  /**
   * Learns every secret the host decrypts or receives and removes them from process errors,
   * events, tool-call errors and log lines (`createRedactor`). Pass the one the embedder's own
   * logger and HTTP layer use too; absent, the host makes its own.
   */
  readonly redactor?: Redactor;
  /** Checked against custom modules' `engines.cyrnel`; default `HOST_VERSION`. */
  readonly hostVersion?: string;
  /**
   * Process limits (`DEFAULT_PROCESS_LIMITS` for what is left out), the deadline of one adapter
   * call (default 60 s) and of a module's setup (default 30 s).
   */
  readonly limits?: Partial<ProcessLimits> & {
    readonly invokeTimeoutMs?: number;
    readonly moduleSetupTimeoutMs?: number;
  };
  /**
   * Where modules may connect on behalf of agent code, handed to every module's `setup` as
   * `context.outbound` (see `createOutboundPolicy`). Absent: modules check nothing.
   */
  readonly outbound?: OutboundPolicy;
  /**
   * The redirect URI of connections' OAuth authorization code flow: `<public URL>/oauth/callback`,
   * read when an authorization starts (the server knows its URL once it listens). Absent: the
   * code flow is refused (client credentials still work).
   */
  readonly oauthRedirectUri?: () => string | undefined;
  /**
   * The https URL of the host's OAuth client ID metadata document (its `client_id` at
   * authorization servers that accept one instead of a registration): used by adapters that sign
   * connections in themselves. Absent: they register a client where the server allows it.
   */
  readonly oauthClientMetadataUrl?: () => string | undefined;
  /**
   * Offer environments direct calls: sandbox processes send portable adapters' tool calls
   * straight to the egress gateway's workers. Default true; false sends every sandbox call through
   * the host's gate first (which still calls portable adapters through the gateway). A policy in
   * `outbound` not made by `createOutboundPolicy` keeps portable calls on the main thread (it
   * cannot be moved to a worker).
   */
  readonly directToolCalls?: boolean;
  /**
   * The egress gateway: `workers` threads (default 2) make portable adapters' calls;
   * `answerBytes` (default 64 MiB) bounds each answer's JSON text. `callJournal`: a directory on
   * storage only this host uses (beside a SQLite file, never for a database several hosts share):
   * a run's later calls of a tool the policies simply allowed are journaled there by the workers
   * and made without a round trip to the main thread; the host records what a crash left in it
   * when it starts. Absent: every call waits for its start to be stored.
   */
  readonly egress?: {
    readonly workers?: number;
    readonly answerBytes?: number;
    readonly callJournal?: string;
  };
  /**
   * This host's identity when several hosts share the storage (see
   * `ProcessManagerOptions.host`): stable across restarts, so a restarted host fails its own
   * leftovers at once; unique per host. Absent: the storage is this host's alone.
   */
  readonly host?: {
    readonly id: string;
    readonly heartbeatMs?: number;
    readonly leaseMs?: number;
    /**
     * How often to look for catalog writes of other hosts (the storage's shared count), in ms;
     * default 1000, 0: never (a storage no other host writes to). A change seen re-hydrates the
     * services it touched, follows module changes and reaches the sandbox processes.
     * With `storage.signals` a change is looked at as soon as it is announced (just the service
     * or module it names), and this backstop runs every `max(catalogPollMs, 10_000)` ms.
     */
    readonly catalogPollMs?: number;
    /** Runs held at once before new work is left to the shared queue (default `DEFAULT_HOST_SLOTS`, 32). */
    readonly slots?: number;
    /** How often to look at the shared queue without a signal, in ms (default 2,000). */
    readonly queuePollMs?: number;
  };
  /**
   * Traces of runs and tool calls through the global OpenTelemetry API (`@opentelemetry/api`;
   * the embedder registers an SDK and an exporter): a run's span continues the trace that was
   * active when it was created (also on another host that takes it from the shared queue), each
   * tool call is a child span with the policies' decision, and the egress gateway's workers send
   * their adapters' spans to the port `tracing.exportPort` gives them, else to
   * `tracing.exportRelayed`. Absent: nothing is traced.
   */
  readonly tracing?: TracingOptions;
  /** Registries, npm and auto-updates; see {@link RegistryOptions}. */
  readonly registries?: RegistryOptions;
  /** Workers and deadlines of schema validation (tool parameters, config, secrets). */
  readonly validation?: SchemaCheckerOptions;
  /**
   * Told of every run's end and every tool call's, for metrics (`@cyrnel/server` makes Prometheus
   * metrics of them); what the host is doing now is `CyrnelHost.stats()`. Absent: nobody.
   */
  readonly metrics?: HostMetrics;
  /** Clock, for tests. */
  readonly now?: () => Date;
}
