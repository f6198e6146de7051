import type { FoundToolCalls, ModuleLogger } from '@cyrnel/sdk';
import type { ApprovalStorage } from '../approvals/approval-storage';
import type { Approvals } from '../approvals/approvals';
import type { ConnectionRouter } from '../connections/connection-router';
import type { TypeCheck } from '../environments/type-check';
import type { ProcessHostOptions } from '../several-hosts/process-host-options';
import type { ProcessHosts } from '../several-hosts/process-hosts';
import type { Tracing } from '../telemetry/tracing';
import type { CallPolicy } from './call-policy';
import type { LocalRuns } from './local-runs';
import type { ProcessExecution } from './process-execution';
import type { ProcessLimits } from './process-limits';
import type { ProcessLookup } from './process-lookup';
import type { ProcessStorage } from './process-storage';

/** What the operations of the processes API share: the manager's parts, wired by `createProcessManager`. */
export interface ProcessParts {
  readonly storage: ProcessStorage;
  readonly limits: ProcessLimits;
  readonly logger: ModuleLogger;
  readonly now: () => Date;
  /** This host among several; undefined when the storage is this host's alone. */
  readonly host: ProcessHostOptions | undefined;
  /** Dispatch, states, deadlines and ends of the runs here. */
  readonly execution: ProcessExecution;
  /** The runs of this host: limits, launch, kills, shutdown. */
  readonly local: LocalRuns;
  /** Reads of a process: the run in memory first, then the store. */
  readonly lookup: ProcessLookup;
  /** The shared queue and the runs of other hosts. */
  readonly hosts: ProcessHosts;
  /**
   * API keys revoked through this host (`revokeKey`): a create with one that got past the key
   * check before the deletion is refused, or ended if it was stored meanwhile.
   */
  readonly revokedKeys: Set<string>;
  /** The policies on calls, approvals and plans (absent: every call is allowed, no plans). */
  readonly policies: ProcessPolicies | undefined;
  /** Which connection each call uses; checks a create request's `connections` (absent: services' own secrets). */
  readonly connections: Pick<ConnectionRouter, 'route' | 'check'> | undefined;
  /** Type-checks code with the active environment (absent: `check` and `typecheck: 'reject'` answer 503). */
  readonly typeCheck: TypeCheck | undefined;
  /** Spans of runs and tool calls; a created run stores the caller's trace context (`NO_TRACING`: off). */
  readonly tracing: Tracing;
}

/** What the processes API needs of the policies. */
export interface ProcessPolicies {
  readonly calls: CallPolicy;
  readonly approvals: Approvals;
  /** Where approvals are stored (pruned with the processes' retention). */
  readonly approvalStorage: ApprovalStorage;
  /** The tool calls of a program, found by the active environment (undefined: it cannot). */
  findToolCalls(code: string): Promise<FoundToolCalls | undefined>;
}
