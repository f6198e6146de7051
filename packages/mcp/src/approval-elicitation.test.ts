import type { ApprovalDetail } from '@cyrnel/sdk/api';
import { describe, expect, it } from 'vitest';
import { answersForms, approvalMessage, approvalRequest, decisionOf } from './approval-elicitation';
import { approvalPage } from './process-view';

const detail: ApprovalDetail = {
  id: 'ap_abc',
  kind: 'call',
  state: 'pending',
  processId: 12,
  keyId: 'k_agent',
  serviceId: 'shop',
  toolId: 'createOrder',
  reason: 'server-default',
  createdAt: '2026-11-27T10:00:00.000Z',
  expiresAt: '2026-11-27T10:10:00.000Z',
  decidedAt: null,
  decidedBy: null,
  note: null,
  remember: null,
  parameters: { body: { userId: 7, amount: 12 } },
  code: 'cyrnel.output({ a: 1 });\n  await cyrnel.services.shop.tools.createOrder.invoke({ body });\n',
  line: 2,
  tools: null,
  unknown: null,
};

describe('answersForms', () => {
  it('is true for a client declaring form elicitation, or elicitation without modes', () => {
    expect(answersForms({ elicitation: { form: {} } })).toBe(true);
    expect(answersForms({ elicitation: { form: {}, url: {} } })).toBe(true);
    expect(answersForms({ elicitation: {} })).toBe(true);
  });

  it('is false without elicitation, or with URL mode alone', () => {
    expect(answersForms(undefined)).toBe(false);
    expect(answersForms({})).toBe(false);
    expect(answersForms({ elicitation: { url: {} } })).toBe(false);
  });
});

describe('approvalRequest', () => {
  it('asks in form mode for a decision, with the service, tool, parameters and line', () => {
    const request = approvalRequest(detail) as { method: string; params: Record<string, unknown> };
    expect(request.method).toBe('elicitation/create');
    expect(request.params).toMatchObject({ mode: 'form', requestedSchema: { required: ['decision'] } });
    const message = approvalMessage(detail);
    expect(message).toContain('A program (process 12) asks to call shop.createOrder.');
    expect(message).toContain('Parameters: {"body":{"userId":7,"amount":12}}');
    expect(message).toContain('Line 2: await cyrnel.services.shop.tools.createOrder.invoke({ body });');
    expect(message).toContain('approval ap_abc');
  });

  it('shows at most 2,000 characters of parameters', () => {
    const message = approvalMessage({ ...detail, parameters: { text: 'x'.repeat(10_000) } });
    expect(message.length).toBeLessThan(2_600);
    expect(message).toContain('…');
  });
});

describe('decisionOf', () => {
  const answered = (response: unknown) => decisionOf({ approval: response });

  it('approves only an accepted form saying approve, keeping its note', () => {
    expect(answered({ action: 'accept', content: { decision: 'approve', note: ' ok ' } })).toEqual({
      decision: 'approve',
      note: 'ok',
    });
    expect(answered({ action: 'accept', content: { decision: 'deny' } })).toEqual({ decision: 'deny' });
    expect(answered({ action: 'accept', content: { decision: 'yes please' } })).toEqual({ decision: 'deny' });
  });

  it('denies a declined or cancelled form, saying so in the note', () => {
    expect(answered({ action: 'decline' })).toEqual({
      decision: 'deny',
      note: 'the person declined the form',
    });
    expect(answered({ action: 'cancel' })).toEqual({
      decision: 'deny',
      note: 'the person cancelled the form',
    });
  });

  it('answers nothing when the retry carries no answer (the form is asked again)', () => {
    expect(decisionOf(undefined)).toBeUndefined();
    expect(decisionOf({ other: { action: 'accept' } })).toBeUndefined();
  });

  it('keeps at most 1,000 characters of a note', () => {
    const long = answered({ action: 'accept', content: { decision: 'approve', note: 'n'.repeat(5_000) } });
    expect(long?.note).toHaveLength(1_000);
  });
});

describe('approvalPage', () => {
  it("is the admin UI's page below the server's URL, or its path alone", () => {
    expect(approvalPage('http://127.0.0.1:9371/', 'ap_1')).toBe('http://127.0.0.1:9371/ui/approvals/ap_1');
    expect(approvalPage(undefined, 'ap_1')).toBe('/ui/approvals/ap_1');
  });
});
