import { describe, expect, it } from 'vitest';
import type { Schema } from './schema-check';
import { checkValue } from './schema-check';
import { draftsOf, planSave, presentBelow } from './settings-plan';

/** An OpenAPI service's config and secrets schemas, as the adapter generates them (abridged). */
const CONFIG: Schema = {
  type: 'object',
  properties: {
    baseUrl: { type: 'string' },
    timeoutMs: { type: 'integer', minimum: 1 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    mode: { enum: ['fast', 'safe'] },
  },
  required: ['baseUrl'],
  additionalProperties: false,
};
const SECRETS: Schema = {
  type: 'object',
  properties: {
    basic: {
      type: 'object',
      properties: { username: { type: 'string' }, password: { type: 'string' } },
      required: ['username', 'password'],
    },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
  },
};
const STORED = { baseUrl: 'https://api.example.com', timeoutMs: 30000 };

describe('planSave', () => {
  it('sends nothing when nothing changed', () => {
    const plan = planSave(CONFIG, STORED, draftsOf(CONFIG, STORED), false);
    expect(plan).toMatchObject({ patch: [], changed: [], general: [] });
    expect(plan.problems.size).toBe(0);
    expect(planSave(SECRETS, {}, draftsOf(SECRETS, {}), true).patch).toEqual([]);
  });

  it('patches the top-level properties that changed: add with the whole value, remove when emptied', () => {
    const drafts = {
      ...draftsOf(CONFIG, STORED),
      '/timeoutMs': '',
      '/headers': '{ "X-Trace": "on" }',
      '/mode': '"safe"',
    };
    const plan = planSave(CONFIG, STORED, drafts, false);
    expect(plan.problems.size).toBe(0);
    expect(plan.patch).toEqual([
      { op: 'remove', path: '/timeoutMs' },
      { op: 'add', path: '/headers', value: { 'X-Trace': 'on' } },
      { op: 'add', path: '/mode', value: 'safe' },
    ]);
    expect(plan.changed).toEqual(['timeoutMs', 'headers', 'mode']);
  });

  it('refuses, at each field, what the server would: not JSON, not a number, out of bounds, wrong types, required', () => {
    const drafts = {
      ...draftsOf(CONFIG, STORED),
      '/baseUrl': '',
      '/timeoutMs': '0',
      '/headers': "{ Authorization: 'Bearer x' }",
    };
    const plan = planSave(CONFIG, STORED, drafts, false);
    expect(plan.patch).toEqual([]);
    expect(Object.fromEntries(plan.problems)).toEqual({
      '/baseUrl': 'baseUrl is required: it cannot be emptied',
      '/timeoutMs': 'timeoutMs must be at least 1',
      '/headers':
        'headers is not JSON (line 1, column 3: a property name without quotes: JSON needs double quotes around names). In JSON it is written like { "Authorization": "Bearer <token>" }',
    });
    const typed = planSave(
      CONFIG,
      STORED,
      { ...draftsOf(CONFIG, STORED), '/timeoutMs': '1.5', '/headers': '{ "A": 1 }' },
      false,
    );
    expect(Object.fromEntries(typed.problems)).toEqual({
      '/timeoutMs': 'timeoutMs must be a whole number',
      '/headers': 'headers: "A" must be a string (in double quotes), not a number',
    });
    const words = planSave(
      CONFIG,
      STORED,
      { ...draftsOf(CONFIG, STORED), '/timeoutMs': '5s', '/headers': '[]' },
      false,
    );
    expect(Object.fromEntries(words.problems)).toEqual({
      '/timeoutMs': 'timeoutMs is not a number: digits only, e.g. 5000',
      '/headers': 'headers must be a JSON object ({ … }), not a list',
    });
  });

  it('sends only the secrets typed, each whole, and says a part of a nested secret is missing', () => {
    const plan = planSave(SECRETS, {}, { '/headers': '{ "Authorization": "Bearer t" }' }, true);
    expect(plan.patch).toEqual([{ op: 'add', path: '/headers', value: { Authorization: 'Bearer t' } }]);
    const part = planSave(SECRETS, {}, { '/basic/username': 'ada' }, true);
    expect(part.patch).toEqual([]);
    expect(Object.fromEntries(part.problems)).toEqual({
      '/basic/password': 'password is required: basic is replaced as a whole when saved',
    });
    expect(planSave(SECRETS, {}, { '/basic/username': 'ada', '/basic/password': 'pw' }, true).patch).toEqual([
      { op: 'add', path: '/basic', value: { username: 'ada', password: 'pw' } },
    ]);
  });
});

describe('presentBelow', () => {
  it('says a secret is set when its value or a value below it is (a header map: its header names)', () => {
    const present = ['/basic/password', '/headers/Authorization', '/headers/X-Api~1Key', '/token'];
    expect(presentBelow(present, '/token')).toEqual([]);
    expect(presentBelow(present, '/headers')).toEqual(['Authorization', 'X-Api/Key']);
    expect(presentBelow(present, '/basic/password')).toEqual([]);
    expect(presentBelow(present, '/basic/username')).toBeUndefined();
    expect(presentBelow(present, '/head')).toBeUndefined();
  });
});

describe('checkValue', () => {
  it('checks enums, lengths, patterns, unknown properties and list items', () => {
    expect(checkValue({ enum: ['a', 'b'] }, 'c', '/x')).toEqual([
      { pointer: '/x', message: 'must be one of "a", "b"' },
    ]);
    expect(checkValue({ type: 'string', minLength: 2 }, 'a', '/x')[0]?.message).toBe(
      'must be at least 2 characters long',
    );
    expect(checkValue({ type: 'string', pattern: '^https?://' }, 'ftp://x', '/x')[0]?.message).toBe(
      'does not have the form the schema asks (^https?://)',
    );
    expect(checkValue(CONFIG, { baseUrl: 'x', extra: 1 }, '')).toEqual([
      { pointer: '/extra', message: 'is not a property this schema knows ("extra")' },
    ]);
    expect(checkValue({ type: 'array', items: { type: 'string' } }, ['a', 2], '/list')).toEqual([
      { pointer: '/list/1', message: 'must be a string (in double quotes), not a number' },
    ]);
  });
});
