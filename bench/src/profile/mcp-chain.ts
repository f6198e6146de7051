import { installEverything } from '../suites/cyrnel-mcp-adapter.ts';
import type { ChainWork } from './chain-profile.ts';

/** `chains` processes of 1,000 sequential `get-sum` calls through the `mcp` adapter (stdio), after one warm-up. */
export function mcpChainWork(chains: number): ChainWork {
  const code = `const getSum = cyrnel.services.everything.tools.get_sum;
let sum = 0;
for (let i = 0; i < 1000; i++) {
  const text: string = await getSum.invoke({ a: i, b: 1 });
  sum += Number(/is (-?\\d+)\\.$/.exec(text)?.[1]);
}
cyrnel.output({ sum });`;
  return {
    title: `${chains} processes of 1,000 sequential MCP tool calls, mcp adapter over stdio (unit: one tool call)`,
    units: (chains + 1) * 1_000,
    async run(api) {
      await installEverything(api);
      for (let i = 0; i <= chains; i++) await api.run(code, 120_000);
    },
  };
}
