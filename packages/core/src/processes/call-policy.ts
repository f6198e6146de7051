import type { FoundToolCalls, ToolLabel, ToolPolicy } from '@cyrnel/sdk';
import type { CallDecision, PlanResponse, PlanTool, PolicyRule } from '@cyrnel/sdk/api';
import type { ApprovalStorage } from '../approvals/approval-storage';
import type { ApprovalOutcome, Approvals } from '../approvals/approvals';
import type { KeyRules } from '../keys/key-ring';
import type { PolicyBook, ToolRules } from '../policies/policy-book';
import { exposed, inScope, keyOverride } from '../policies/policy-rules';
import type { LiveProcess } from './live-process';

/** What the policies decided for one call of a run. */
export interface CallVerdict {
  readonly policy: ToolPolicy;
  readonly rule: PolicyRule;
  readonly detail?: string;
  /** The tool's labels, joined to the run's once the call is made. */
  readonly labels: readonly ToolLabel[];
}

/** What a run's calls are decided with, loaded at its first call. */
export interface RunPolicyState {
  readonly keyRules: KeyRules;
  /** Qualified tools of the plan it runs, pre-approved; null without a plan. */
  readonly plan: ReadonlySet<string> | null;
  /** Tools a person approved for the rest of this run. */
  readonly remembered: Set<string>;
}

/** Options of {@link createCallPolicy}. */
export interface CallPolicyOptions {
  readonly book: PolicyBook;
  readonly approvals: Approvals;
  /** The stored approvals (a run taken from the shared queue finds its plan there). */
  readonly approvalStorage: ApprovalStorage;
  /** The scope and policy of a key (undefined: unknown, treated as none). */
  readonly keyRules: (keyId: string) => Promise<KeyRules | undefined>;
  /** The call sites of a program (the active environment's `findToolCalls`), for the line of an approval. */
  readonly findToolCalls?: (code: string) => Promise<FoundToolCalls | undefined>;
}

/** The policies on the call paths of runs: one decision point for the gate and the egress gateway. */
export interface CallPolicy {
  /** The decision without waiting, when what it needs is in memory (the gateway's hot path). */
  decideNow(run: LiveProcess, serviceId: string, toolId: string): CallVerdict | undefined;
  decide(run: LiveProcess, serviceId: string, toolId: string): Promise<CallVerdict>;
  /** A call is made: its labels join the run's. */
  made(run: LiveProcess, verdict: CallVerdict): void;
  /** The audit of a decision. */
  decision(
    verdict: CallVerdict,
    outcome: CallDecision['outcome'],
    approval?: { id: string; outcome: ApprovalOutcome },
  ): CallDecision;
  /** Ask a person about a call; resolves with the approval's id, once it is decided. */
  ask(
    run: LiveProcess,
    serviceId: string,
    toolId: string,
    parameters: Record<string, unknown>,
    verdict: CallVerdict,
  ): Promise<{ readonly id: string; readonly outcome: Promise<ApprovalOutcome> }>;
  /** The run that waited for approval `id` ended: it expires, its waiter is let go. */
  cancel(id: string): void;
  /** A person approved a call with `remember`: later calls of the tool in this run are not asked. */
  remember(run: LiveProcess, qualified: string): void;
  /** The tools of a plan with their policies for `keyId`, from what the code calls. */
  planTools(keyId: string | null, found: FoundToolCalls): Promise<Pick<PlanResponse, 'tools' | 'unknown'>>;
  /** A run of an approved plan: its tools are pre-approved when it first calls. */
  usePlan(processId: number, tools: ReadonlySet<string>): void;
}

const NO_KEY_RULES: KeyRules = { scope: null, policy: null };
const ALLOW_UNKNOWN: CallVerdict = { policy: 'allow', rule: 'server-default', labels: [] };

/**
 * Create the call policy. The order of a decision: a tool outside the key's scope is blocked;
 * otherwise the tool's effective policy, replaced by the key's own entry when it has one; an `ask`
 * of a tool in the run's approved plan, or approved with `remember`, is allowed; and in a run that
 * called a `private` and an `untrusted` tool, an `egress` call is asked (or blocked), whatever
 * came before. An unknown tool is left to the gate, which refuses it.
 */
export function createCallPolicy(options: CallPolicyOptions): CallPolicy {
  const { book, approvals } = options;
  const states = new WeakMap<LiveProcess, RunPolicyState>();
  const loading = new WeakMap<LiveProcess, Promise<RunPolicyState>>();
  const plans = new Map<number, ReadonlySet<string>>();

  const load = (run: LiveProcess): Promise<RunPolicyState> => {
    const known = states.get(run);
    if (known) return Promise.resolve(known);
    let pending = loading.get(run);
    if (!pending) {
      pending = (async () => {
        const keyId = run.record.keyId;
        const keyRules = keyId === null ? NO_KEY_RULES : ((await options.keyRules(keyId)) ?? NO_KEY_RULES);
        const id = run.record.id;
        let plan = plans.get(id) ?? null;
        plans.delete(id);
        if (!plan) {
          const used = await options.approvalStorage.listApprovals({
            processId: id,
            state: 'used',
            limit: 5,
          });
          const row = used.find((candidate) => candidate.kind === 'plan' && candidate.plan);
          if (row?.plan) plan = new Set(row.plan.tools.map((tool) => `${tool.serviceId}.${tool.toolId}`));
        }
        const state: RunPolicyState = { keyRules, plan, remembered: new Set() };
        states.set(run, state);
        return state;
      })().finally(() => loading.delete(run));
      loading.set(run, pending);
    }
    return pending;
  };

  const verdictOf = (
    run: LiveProcess,
    state: RunPolicyState,
    serviceId: string,
    toolId: string,
    rules: ToolRules | null,
  ): CallVerdict => {
    if (!rules) return ALLOW_UNKNOWN;
    const qualified = `${serviceId}.${toolId}`;
    const { labels } = rules;
    if (!inScope(state.keyRules.scope, serviceId, toolId))
      return { policy: 'block', rule: 'scope', detail: "outside the key's scope", labels };
    let verdict: CallVerdict = {
      ...(keyOverride(state.keyRules.policy, serviceId, toolId) ?? rules.effective),
      labels,
    };
    if (verdict.policy === 'ask') {
      if (state.plan?.has(qualified)) verdict = { policy: 'allow', rule: 'plan', labels };
      else if (state.remembered.has(qualified) || approvals.rememberedForKey(run.record.keyId, qualified))
        verdict = { policy: 'allow', rule: 'remembered', labels };
    }
    // Whatever allowed it (its policy, the key, a plan, a remembered approval), an egress call of
    // a run that read private and untrusted data is asked (or blocked); approving it covers it alone.
    if (labels.includes('egress') && exposed(run.labels) && verdict.policy !== 'block')
      verdict = {
        policy: rules.dataFlow,
        rule: 'data-flow',
        detail: 'the process read private and untrusted data',
        labels,
      };
    return verdict;
  };

  const lineOf = async (run: LiveProcess, serviceId: string, toolId: string): Promise<number | null> => {
    const found = await options.findToolCalls?.(run.code).catch(() => undefined);
    return found?.calls.find((call) => call.serviceId === serviceId && call.toolId === toolId)?.line ?? null;
  };

  return {
    decideNow(run, serviceId, toolId) {
      const state = states.get(run);
      const rules = book.peek(serviceId, toolId);
      if (!state || rules === undefined) return undefined;
      return verdictOf(run, state, serviceId, toolId, rules);
    },
    async decide(run, serviceId, toolId) {
      const state = await load(run);
      const rules = await book.rules(serviceId, toolId);
      return verdictOf(run, state, serviceId, toolId, rules);
    },
    made(run, verdict) {
      for (const label of verdict.labels) run.labels.add(label);
    },
    decision(verdict, outcome, approval) {
      return {
        policy: verdict.policy,
        rule: verdict.rule,
        ...(verdict.detail === undefined ? {} : { detail: verdict.detail }),
        outcome,
        ...(approval
          ? {
              approvalId: approval.id,
              decidedBy: approval.outcome.decidedBy,
              ...(approval.outcome.note === null ? {} : { note: approval.outcome.note }),
            }
          : {}),
      };
    },
    async ask(run, serviceId, toolId, parameters, verdict) {
      return approvals.ask({
        processId: run.record.id,
        keyId: run.record.keyId,
        serviceId,
        toolId,
        reason: verdict.rule === 'data-flow' ? 'data-flow' : verdict.rule,
        parameters,
        code: run.code,
        line: await lineOf(run, serviceId, toolId),
      });
    },
    cancel: (id) => approvals.cancel(id),
    remember(run, qualified) {
      states.get(run)?.remembered.add(qualified);
    },
    async planTools(keyId, found) {
      const state: RunPolicyState = {
        keyRules: keyId === null ? NO_KEY_RULES : ((await options.keyRules(keyId)) ?? NO_KEY_RULES),
        plan: null,
        remembered: new Set(),
      };
      const byTool = new Map<string, PlanTool>();
      for (const call of found.calls) {
        const qualified = `${call.serviceId}.${call.toolId}`;
        const known = byTool.get(qualified);
        if (known) {
          known.lines.push(call.line);
          continue;
        }
        const rules = await book.rules(call.serviceId, call.toolId);
        // A plan is judged as a fresh run: no labels yet, nothing remembered.
        const fresh = { record: { keyId }, labels: new Set<ToolLabel>() } as unknown as LiveProcess;
        const verdict = verdictOf(fresh, state, call.serviceId, call.toolId, rules);
        byTool.set(qualified, {
          serviceId: call.serviceId,
          toolId: call.toolId,
          effectivePolicy: verdict.policy,
          labels: [...verdict.labels],
          lines: [call.line],
          known: rules !== null,
        });
      }
      return { tools: [...byTool.values()], unknown: found.unknown.map((site) => ({ ...site })) };
    },
    usePlan(processId, tools) {
      plans.set(processId, tools);
    },
  };
}
