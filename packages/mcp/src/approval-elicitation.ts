import type { ApprovalDetail, DecideApprovalRequest } from '@cyrnel/sdk/api';
import {
  type ClientCapabilities,
  type InputRequest,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';

/** The key of the one input a round asks for: the person's decision. */
export const APPROVAL_INPUT = 'approval';

/** The longest note kept with a decision (the approvals API refuses longer ones). */
const MAX_NOTE_CHARS = 1_000;
/** Parameters are shown up to this many characters: a form is no place for a whole payload. */
const MAX_PARAMETERS_CHARS = 2_000;
/** The line of code is shown up to this many characters. */
const MAX_LINE_CHARS = 300;

/** The form: a decision (approve or deny) and an optional note, nothing else a person must fill. */
const DECISION_FORM = {
  type: 'object' as const,
  properties: {
    decision: {
      type: 'string' as const,
      title: 'Decision',
      description: 'Approve lets the program make this call; deny makes the call fail (the program goes on).',
      oneOf: [
        { const: 'approve', title: 'Approve' },
        { const: 'deny', title: 'Deny' },
      ],
    },
    note: {
      type: 'string' as const,
      title: 'Note',
      description: 'Why (optional), kept with the decision in the audit',
      maxLength: MAX_NOTE_CHARS,
    },
  },
  required: ['decision'],
};

/**
 * Whether the client answers form-mode elicitations: it declared `elicitation`, with `form` or
 * with no mode at all (which means form, for clients older than the modes).
 */
export function answersForms(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === undefined || elicitation === null) return false;
  return 'form' in elicitation || Object.keys(elicitation).length === 0;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`);

/** The message a person reads: which call, with which parameters, from which line of which process. */
export function approvalMessage(detail: ApprovalDetail): string {
  const tool = `${detail.serviceId ?? '?'}.${detail.toolId ?? '?'}`;
  const lines = [`A program (process ${detail.processId}) asks to call ${tool}.`];
  lines.push(`Why it asks: ${detail.reason}.`);
  if (detail.parameters !== null)
    lines.push(`Parameters: ${clip(JSON.stringify(detail.parameters), MAX_PARAMETERS_CHARS)}`);
  const code = detail.line === null ? undefined : detail.code.split('\n')[detail.line - 1]?.trim();
  if (code) lines.push(`Line ${detail.line}: ${clip(code, MAX_LINE_CHARS)}`);
  lines.push(`Approve or deny this call? (approval ${detail.id}, expires ${detail.expiresAt})`);
  return lines.join('\n');
}

/** The embedded form-mode elicitation asking a person to decide `detail`. */
export function approvalRequest(detail: ApprovalDetail): InputRequest {
  return inputRequired.elicit({
    mode: 'form',
    message: approvalMessage(detail),
    requestedSchema: DECISION_FORM,
  });
}

/**
 * The decision a retried request carries (under `key`): approve only when the form was accepted
 * with `approve`; accepted with anything else, declined or cancelled, deny. Undefined when the
 * response is missing (the form is asked again).
 */
export function decisionOf(
  responses: Record<string, unknown> | undefined,
  key: string = APPROVAL_INPUT,
): DecideApprovalRequest | undefined {
  const view = inputResponse(responses, key);
  if (view.kind !== 'elicit') return undefined;
  if (view.action !== 'accept')
    return {
      decision: 'deny',
      note: `the person ${view.action === 'decline' ? 'declined' : 'cancelled'} the form`,
    };
  const content = view.content ?? {};
  const note = typeof content.note === 'string' ? content.note.trim().slice(0, MAX_NOTE_CHARS) : '';
  return {
    decision: content.decision === 'approve' ? 'approve' : 'deny',
    ...(note === '' ? {} : { note }),
  };
}
