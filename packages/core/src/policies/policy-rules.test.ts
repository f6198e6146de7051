import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, parseDefaultPolicy } from './policy-input';
import { exposed, inScope, keyOverride, toolLabels, toolPolicy } from './policy-rules';

describe('policy rules', () => {
  it('takes the most specific rule: the tool, the service by annotation (strictest), its default, the server', () => {
    const service = {
      default: 'allow' as const,
      byAnnotation: { readOnly: 'allow' as const, openWorld: 'ask' as const },
    };
    expect(toolPolicy('t', {}, { tools: { t: 'block' }, ...service }, DEFAULT_POLICY)).toEqual({
      policy: 'block',
      rule: 'tool',
    });
    expect(toolPolicy('t', { readOnly: true, openWorld: true }, service, DEFAULT_POLICY)).toEqual({
      policy: 'ask',
      rule: 'service-annotation',
      detail: 'openWorld',
    });
    expect(toolPolicy('t', { destructive: true }, service, DEFAULT_POLICY)).toEqual({
      policy: 'allow',
      rule: 'service-default',
    });
    expect(toolPolicy('t', { readOnly: true }, {}, DEFAULT_POLICY)).toEqual({
      policy: 'allow',
      rule: 'server-annotation',
      detail: 'readOnly',
    });
    expect(toolPolicy('t', { readOnly: false }, {}, DEFAULT_POLICY)).toEqual({
      policy: 'ask',
      rule: 'server-default',
    });
    // A tool id that is a property of every object is not a setting.
    expect(toolPolicy('constructor', {}, { tools: {} }, DEFAULT_POLICY).rule).toBe('server-default');
  });

  it('derives labels from annotations unless the service sets them', () => {
    expect(toolLabels('t', { readOnly: true, openWorld: true }, {})).toEqual(['untrusted']);
    expect(toolLabels('t', { readOnly: true }, {})).toEqual([]);
    expect(toolLabels('t', {}, {})).toEqual(['egress']);
    expect(toolLabels('t', { readOnly: false, openWorld: false }, {})).toEqual([]);
    expect(toolLabels('t', {}, { labels: { t: ['private'] } })).toEqual(['private']);
    expect(exposed(new Set(['private', 'untrusted'] as const))).toBe(true);
    expect(exposed(new Set(['private', 'egress'] as const))).toBe(false);
  });

  it("reads a key's scope and its most specific override", () => {
    expect(inScope(null, 's', 't')).toBe(true);
    expect(inScope({ services: ['s'] }, 's', 't')).toBe(true);
    expect(inScope({ tools: ['s.t'] }, 's', 'u')).toBe(false);
    const policy = {
      default: 'ask' as const,
      services: { s: 'allow' as const },
      tools: { 's.t': 'block' as const },
    };
    expect(keyOverride(policy, 's', 't')).toEqual({ policy: 'block', rule: 'key', detail: 'tools.s.t' });
    expect(keyOverride(policy, 's', 'u')).toEqual({ policy: 'allow', rule: 'key', detail: 'services.s' });
    expect(keyOverride(policy, 'x', 'u')).toEqual({ policy: 'ask', rule: 'key', detail: 'default' });
    expect(keyOverride(null, 's', 't')).toBeUndefined();
  });

  it('reads --default-policy as a policy or name=policy pairs, refusing anything else by name', () => {
    expect(parseDefaultPolicy('allow')).toEqual({ default: 'allow', byAnnotation: {} });
    expect(parseDefaultPolicy('default=block, readOnly=allow,destructive=block')).toEqual({
      default: 'block',
      byAnnotation: { readOnly: 'allow', destructive: 'block' },
    });
    expect(() => parseDefaultPolicy('sometimes')).toThrow(/sometimes/);
    expect(() => parseDefaultPolicy('readOnly=maybe')).toThrow(/maybe/);
    expect(() => parseDefaultPolicy('dangerous=block')).toThrow(/dangerous/);
  });
});
