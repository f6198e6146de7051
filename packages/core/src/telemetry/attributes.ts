/**
 * The attributes cyrnel's spans carry. They name who and what (service, tool, key id, principal,
 * process id, host), how it ended (exit state, reasons, codes) and how long it waited; never a
 * parameter value, an answer, an error message or a secret.
 */
export const ATTR = {
  service: 'cyrnel.service',
  tool: 'cyrnel.tool',
  keyId: 'cyrnel.key_id',
  principal: 'cyrnel.principal',
  processId: 'cyrnel.process.id',
  hostId: 'cyrnel.host.id',
  claimed: 'cyrnel.process.claimed',
  exitState: 'cyrnel.process.exit_state',
  errorReason: 'cyrnel.error.reason',
  errorCode: 'cyrnel.error.code',
  queuedMs: 'cyrnel.process.queued_ms',
  runningMs: 'cyrnel.process.running_ms',
  calls: 'cyrnel.process.calls',
  callIndex: 'cyrnel.call.index',
  callOk: 'cyrnel.call.ok',
  argumentShape: 'cyrnel.call.argument_shape',
  policy: 'cyrnel.policy',
  policyRule: 'cyrnel.policy.rule',
  policyDetail: 'cyrnel.policy.detail',
  policyOutcome: 'cyrnel.policy.outcome',
  approvalId: 'cyrnel.approval.id',
  approvalDecidedBy: 'cyrnel.approval.decided_by',
  errorType: 'error.type',
  operation: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
} as const;

/** Names of cyrnel's own spans. */
export const SPAN = {
  process: 'cyrnel.process',
  queued: 'cyrnel.process.queued',
  /** Followed by ` <service>.<tool>` (GenAI's `execute_tool {gen_ai.tool.name}`). */
  toolCall: 'execute_tool',
  /** The event of a tool call's span that carries how the policies decided it. */
  policyEvent: 'cyrnel.policy.decision',
} as const;
