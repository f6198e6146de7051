import { describe, expect, it } from 'vitest';
import { createRedactor } from './redactor';

describe('createRedactor', () => {
  it('replaces every secret of every owner, in any position, overlapping or adjacent', () => {
    const redactor = createRedactor();
    redactor.remember('service:a', { token: 'abcdef', nested: { list: ['cdefgh'] } });
    redactor.remember('module:b', { key: 'zzzz' });
    expect(redactor.redact('x abcdef y')).toBe('x *** y');
    expect(redactor.redact('abcdefgh')).toBe('***');
    expect(redactor.redact('zzzzabcdefzzzz!')).toBe('***!');
    expect(redactor.redact('abcdeabcdef')).toBe('abcde***');
    expect(redactor.redact('nothing here')).toBe('nothing here');
  });

  it('finds a secret escaped inside JSON text and URL-encoded', () => {
    const redactor = createRedactor();
    redactor.remember('service:a', { token: 'p"a\\ss w/rd' });
    expect(redactor.redact(JSON.stringify({ error: 'bad p"a\\ss w/rd' }))).toBe('{"error":"bad ***"}');
    expect(redactor.redact(`?t=${encodeURIComponent('p"a\\ss w/rd')}&x=1`)).toBe('?t=***&x=1');
  });

  it('ignores values shorter than four characters, and forgets an owner or its old values', () => {
    const redactor = createRedactor();
    redactor.remember('service:a', { pin: '123', token: 'long-secret' });
    expect(redactor.redact('123 long-secret')).toBe('123 ***');
    redactor.remember('service:a', { token: 'new-secret' });
    expect(redactor.redact('long-secret new-secret')).toBe('long-secret ***');
    redactor.forget('service:a');
    expect(redactor.redact('new-secret')).toBe('new-secret');
  });

  it('redacts the strings of a value and keeps the object when nothing changed', () => {
    const redactor = createRedactor();
    redactor.remember('host:key', ['cyk_secretvalue']);
    const clean = { a: 1, b: ['x'] };
    expect(redactor.redactValue(clean)).toBe(clean);
    expect(redactor.redactValue({ a: { b: ['key cyk_secretvalue'] }, n: 2 })).toEqual({
      a: { b: ['key ***'] },
      n: 2,
    });
  });

  it('scans once for many secrets: 1,000 secrets over 4 MB of text in linear time', () => {
    const redactor = createRedactor();
    const secrets = Array.from({ length: 1_000 }, (_, index) => `secret-${index}-${'k'.repeat(20)}`);
    redactor.remember('service:many', secrets);
    const text = `${'lorem ipsum dolor sit amet '.repeat(150_000)}${secrets[999]} end`;
    const redacted = redactor.redact(text);
    expect(redacted.endsWith(' *** end')).toBe(true);
    expect(redacted.length).toBe(text.length - (secrets[999] as string).length + 3);
  });
});
