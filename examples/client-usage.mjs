// The client tour: install a service from an OpenAPI file, set its secret, enable it, run code
// that calls two tools, print the output. Needs a running cyrnel and examples/upstream.mjs:
//
//   CYRNEL_ALLOW_PRIVATE_URLS=true node apps/server/dist/cli.js --data-dir /tmp/cyrnel-demo
//   node examples/upstream.mjs
//   node examples/client-usage.mjs
//
// Environment: CYRNEL_URL (default http://127.0.0.1:9371), CYRNEL_API_KEY, UPSTREAM_URL
// (default http://127.0.0.1:8787).
import './require-node.mjs';
import { readFile } from 'node:fs/promises';
// Inside this repository the client comes from its build; elsewhere: `from '@cyrnel/client'`.
import { CyrnelHttpError, CyrnelProcessError, createClient } from '../packages/client/dist/index.js';

const client = createClient({
  baseUrl: process.env.CYRNEL_URL ?? 'http://127.0.0.1:9371',
  apiKey: process.env.CYRNEL_API_KEY,
});
const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:8787';

// Re-runnable: an earlier install of the same id is replaced.
await client.services.delete('weather').catch((error) => {
  if (!(error instanceof CyrnelHttpError && error.reason === 'service_not_found')) throw error;
});

// 1. Install from the file; the adapter turns each operation into a tool.
const service = await client.services.install({
  id: 'weather',
  adapter: 'openapi',
  definition: await readFile(new URL('./weather.openapi.json', import.meta.url), 'utf8'),
  config: { baseUrl: upstream },
});
console.log(`installed ${service.id} (${service.toolCount} tools, enabled: ${service.enabled})`);

// 2. Secrets are JSON-patched, stored encrypted, and never returned: only which are set.
await client.services.patchSecrets('weather', [{ op: 'add', path: '/apiKey', value: 'demo-key' }]);
console.log('secrets set:', (await client.services.getSecrets('weather')).present);

// 3. Enable (config and secrets are validated now).
await client.services.setEnabled('weather', true);
for await (const tool of client.tools.iterate({ serviceId: 'weather' })) {
  console.log(`tool ${tool.serviceId}.${tool.id}: ${tool.name}`);
}

// 4. Run code that chains two tools; only what it outputs comes back.
const code = `
const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ query: { city: 'Paris' } });
if (forecast.status !== 200) throw new Error('forecast failed: ' + forecast.status);
const converted = await cyrnel.services.weather.tools.celsiusToFahrenheit.invoke({
  query: { celsius: forecast.body.celsius },
});
console.log('fetched forecast and conversion');
cyrnel.output({ city: forecast.body.city, summary: forecast.body.summary, fahrenheit: converted.body.fahrenheit });
`;
try {
  const result = await client.processes.run(code, { timeoutMs: 10_000, throwOnFailure: true });
  console.log('output:', JSON.stringify(result.output));
  // → output: {"city":"Paris","summary":"sunny","fahrenheit":70.7}
  console.log('stdout:', result.stdout.trim());
  const calls = await client.processes.calls(result.id);
  console.log(
    'tool calls:',
    calls.items.map((c) => `${c.toolId} ${c.ok ? 'ok' : c.errorCode} ${c.durationMs}ms`).join(', '),
  );
} catch (error) {
  if (error instanceof CyrnelProcessError) {
    console.error(`the process ended ${error.result.exitState}: ${error.result.error}`);
    process.exitCode = 1;
  } else throw error;
}
