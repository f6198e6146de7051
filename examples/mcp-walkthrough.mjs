// The walkthrough's run through MCP, as an MCP client (an agent's host) does it: search, read the
// types of the chosen tools, execute code. Run after examples/walkthrough.sh (the weather service
// installed and enabled): `node examples/mcp-walkthrough.mjs`.
import './require-node.mjs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const base = process.env.CYRNEL_URL ?? 'http://127.0.0.1:9371';
const headers = process.env.CYRNEL_API_KEY ? { authorization: `Bearer ${process.env.CYRNEL_API_KEY}` } : {};
const client = new Client({ name: 'mcp-walkthrough', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));

// 1. Which tools fit the task?
const search = await client.callTool({ name: 'search_tools', arguments: { query: 'weather forecast' } });
console.log('search:', search.structuredContent.tools.map((tool) => tool.tool).join(', '));
// → search: weather.getForecast, weather.celsiusToFahrenheit

// 2. Their exact parameters and results.
const types = await client.callTool({
  name: 'get_tool_types',
  arguments: { tools: ['weather.getForecast', 'weather.celsiusToFahrenheit'] },
});
console.log('types:', types.structuredContent.declarations.includes('getForecast'));
// → types: true

// 3. The code, run in the sandbox; only what reaches cyrnel.output() comes back.
const code = `
const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ query: { city: 'Lima' } });
const converted = await cyrnel.services.weather.tools.celsiusToFahrenheit.invoke({
  query: { celsius: forecast.body.celsius },
});
cyrnel.output({ city: forecast.body.city, fahrenheit: converted.body.fahrenheit });
`;
const run = await client.callTool({ name: 'execute_typescript', arguments: { code } });
console.log('output:', JSON.stringify(run.structuredContent.output));
// → output: {"city":"Lima","fahrenheit":64.4}
await client.close();
