import { MAX_IDENTIFIER_LENGTH } from '@cyrnel/sdk';
import { describe, expect, it } from 'vitest';
import { boundCalledNames } from './called-names';

describe('boundCalledNames', () => {
  it('cuts a service or tool name past the id bound to one character more, and nothing else', () => {
    const long = 'x'.repeat(1_000_000);
    const parameters = { filler: long };
    const [service, tool, kept, named] = boundCalledNames('invoke', [long, 'ping', parameters, 'work']);
    expect((service as string).length).toBe(MAX_IDENTIFIER_LENGTH + 1);
    expect(tool).toBe('ping');
    // Parameters are the gate's to judge (and bound), not this.
    expect(kept).toBe(parameters);
    expect(named).toBe('work');
    expect(boundCalledNames('describeTool', ['shop', long])).toEqual([
      'shop',
      long.slice(0, MAX_IDENTIFIER_LENGTH + 1),
    ]);
  });

  it('hands calls with names within the bound, and other kinds, on as they are', () => {
    const args = ['s'.repeat(MAX_IDENTIFIER_LENGTH), 't', {}];
    expect(boundCalledNames('invoke', args)).toBe(args);
    const query = [{ query: 'x'.repeat(1_000) }];
    expect(boundCalledNames('discoverTools', query)).toBe(query);
  });
});
