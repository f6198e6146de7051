// The skeleton of an agent loop on cyrnel, discover first: search the tools for the task, read the
// TypeScript declarations of the chosen ones only (a catalog like GitHub's is megabytes whole),
// have a model write code against them, run it, and feed failures back until it succeeds. Only
// the code's output reaches the model.
//
//   node examples/agent-loop.mjs "What is the weather in Oslo, in Fahrenheit?"
//
// Run examples/client-usage.mjs first (it installs and enables the `weather` service).
// Environment: CYRNEL_URL (default http://127.0.0.1:9371), CYRNEL_API_KEY.
// Inside this repository the client comes from its build; elsewhere: `from '@cyrnel/client'`.
import './require-node.mjs';
import { createClient } from '../packages/client/dist/index.js';

const MAX_ATTEMPTS = 3;
const client = createClient({
  baseUrl: process.env.CYRNEL_URL ?? 'http://127.0.0.1:9371',
  apiKey: process.env.CYRNEL_API_KEY,
});
const task = process.argv[2] ?? 'What is the weather in Oslo, in Fahrenheit?';

// 1. Search: one ranked search over the enabled tools (exact ids first, then the task's words).
//    A real agent lets its model phrase the query and pick among the hits; this stub takes them all.
const found = await client.tools.list({ query: task, limit: 5 });
const chosen = found.items.map((tool) => `${tool.serviceId}.${tool.id}`);
console.log(`search: ${chosen.join(', ')}`);

// 2. Types of the chosen tools only (shared schemas declared once), and the runtime docs.
const types = await client.environment.types({ tools: chosen });
const docs = await client.environment.docs();
console.log(`context: ${types.length} characters of types, ${docs.length} of docs`);

/**
 * 3. Code. ===== THE LLM CALL GOES HERE =====
 * A real agent sends `system` (docs + types) and the conversation to its model and returns the
 * TypeScript the model wrote. This stub returns a fixed program for the weather task instead, so
 * the loop runs without a model. `feedback` holds the previous attempt's error, if any.
 */
async function writeCode({ system, task: question, feedback }) {
  void system;
  void question;
  void feedback;
  const city = /oslo/i.test(question) ? 'Oslo' : /lima/i.test(question) ? 'Lima' : 'Paris';
  return `
const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ query: { city: ${JSON.stringify(city)} } });
if (forecast.status !== 200) throw new Error('no forecast for ${city}: HTTP ' + forecast.status);
const { body } = await cyrnel.services.weather.tools.celsiusToFahrenheit.invoke({ query: { celsius: forecast.body.celsius } });
cyrnel.output({ answer: '${city}: ' + forecast.body.summary + ', ' + body.fahrenheit + '°F' });
`;
}

const system = `You write TypeScript for the cyrnel sandbox.\n\n${docs}\n\n\`\`\`ts\n${types}\n\`\`\``;
let feedback;
for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
  const code = await writeCode({ system, task, feedback });
  const result = await client.processes.run(code, { timeoutMs: 10_000, ref: 'agent-loop' });
  if (result.exitState === 'success') {
    // This object is all the model would see of the run.
    console.log(`attempt ${attempt}: success`);
    console.log('result:', JSON.stringify(result.output));
    process.exit(0);
  }
  feedback = `The code ended ${result.exitState}: ${result.error}\nstderr:\n${result.stderr}`;
  console.log(`attempt ${attempt}: ${result.exitState} (${result.error}); asking the model again`);
}
console.error(`gave up after ${MAX_ATTEMPTS} attempts`);
process.exit(1);
