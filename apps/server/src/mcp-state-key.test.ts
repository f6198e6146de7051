import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mcpStateKeyOf } from './compose-host';

describe('the key of /mcp approval rounds', () => {
  it('is the same on every host of one secrets key, another for another key, and never the key itself', () => {
    const key = randomBytes(32);
    expect(mcpStateKeyOf(key)).toEqual(mcpStateKeyOf(Buffer.from(key)));
    expect(mcpStateKeyOf(key)).not.toEqual(mcpStateKeyOf(randomBytes(32)));
    expect(mcpStateKeyOf(key)).not.toEqual(key);
    expect(mcpStateKeyOf(key)).toHaveLength(32);
  });
});
