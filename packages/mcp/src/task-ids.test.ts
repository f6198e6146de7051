import { describe, expect, it } from 'vitest';
import { createTaskIds } from './task-ids';

describe('createTaskIds', () => {
  it('names the process in an id only the same key reads back', () => {
    const ids = createTaskIds('a key of at least thirty-two bytes!!');
    const id = ids.mint(42);
    expect(id).toMatch(/^task-42-[\w-]{22}$/);
    expect(ids.processOf(id)).toBe(42);
    expect(createTaskIds('a key of at least thirty-two bytes!!').processOf(id)).toBe(42);
    expect(createTaskIds('another key, another server, nothing').processOf(id)).toBeUndefined();
  });

  it('refuses ids it never minted: another process, a changed mac, other shapes', () => {
    const ids = createTaskIds(new Uint8Array(32).fill(7));
    const id = ids.mint(42);
    const mac = id.split('-')[2] as string;
    expect(ids.processOf(`task-43-${mac}`)).toBeUndefined();
    expect(ids.processOf(`${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    for (const other of [
      '',
      'task-42',
      `task-42-${mac}-x`,
      `task-0042-${mac}`,
      `task-1e3-${mac}`,
      `task-99999999999999999-${mac}`,
    ])
      expect(ids.processOf(other)).toBeUndefined();
  });

  it('makes a random key of its own when given none', () => {
    const id = createTaskIds(undefined).mint(1);
    expect(createTaskIds(undefined).processOf(id)).toBeUndefined();
  });
});
