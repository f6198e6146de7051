import { createRequire } from 'node:module';
import type { ChainWork } from './chain-profile.ts';

const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

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
      await api.patch('/modules/mcp/config', [
        { op: 'add', path: '/allowedCommands', value: [process.execPath] },
      ]);
      await api.post('/services', {
        id: 'everything',
        adapter: 'mcp',
        definition: JSON.stringify({
          transport: 'stdio',
          command: process.execPath,
          args: [EVERYTHING, 'stdio'],
        }),
        enabled: true,
      });
      for (let i = 0; i <= chains; i++) await api.run(code, 120_000);
    },
  };
}
