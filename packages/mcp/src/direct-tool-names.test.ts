import { describe, expect, it } from 'vitest';
import { leftOutMessage, MAX_TOOL_NAME_LENGTH, nameTools } from './direct-tool-names';

describe('nameTools', () => {
  it('names each tool <service>__<tool>', () => {
    const { named, leftOut } = nameTools([
      { serviceId: 'shop', toolId: 'getUser' },
      { serviceId: 'memory', toolId: 'read_graph' },
    ]);
    expect([...named.keys()]).toEqual(['shop__getUser', 'memory__read_graph']);
    expect(leftOut).toEqual([]);
  });

  it('leaves out every tool of a shared name, whatever the order, and renames none', () => {
    const a = { serviceId: 'x', toolId: 'y__z' };
    const b = { serviceId: 'x__y', toolId: 'z' };
    for (const tools of [
      [a, b],
      [b, a],
    ]) {
      const { named, leftOut } = nameTools(tools);
      expect(named.size).toBe(0);
      expect(leftOut.map((left) => [left.tool, left.reason])).toEqual(
        tools.map((tool) => [tool, 'collision']),
      );
    }
    const [left] = nameTools([a, b]).leftOut;
    expect(leftOutMessage(left as never)).toBe(
      'x.y__z is not offered as a direct tool: its name x__y__z is also the name of x__y.z',
    );
  });

  it("leaves out names MCP's rules refuse: a character outside [A-Za-z0-9_.-], more than 128 characters", () => {
    const longest = { serviceId: 's', toolId: 't'.repeat(MAX_TOOL_NAME_LENGTH - 3) };
    const tooLong = { serviceId: 's', toolId: 't'.repeat(MAX_TOOL_NAME_LENGTH - 2) };
    const dollar = { serviceId: 'pay', toolId: 'get$' };
    const { named, leftOut } = nameTools([longest, tooLong, dollar]);
    expect([...named.values()]).toEqual([longest]);
    expect(leftOut.map((left) => left.reason)).toEqual(['length', 'characters']);
    expect(leftOutMessage(leftOut[0] as never)).toContain('129 characters long, more than MCP');
  });
});
