// Floor (a)+(b) as a service, for throughput: a hono app whose `POST /processes` runs the
// program in floor (b)'s isolate pool (one per core) and answers its output. Run as its own process
// (`node --no-node-snapshot floor-server.ts`) so the load generator does not share its thread;
// it prints `listening <url>` once ready.
import { availableParallelism } from 'node:os';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createIvmFloor } from './ivm-context.ts';

// One isolate per core, as cyrnel's sandbox pool defaults to.
const floor = createIvmFloor({ isolates: availableParallelism() });
const app = new Hono();
app.post('/processes', async (c) => {
  const { code } = await c.req.json<{ code: string }>();
  return c.json({ state: 'idle', exitState: 'success', output: await floor.run(code) }, 201);
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(`listening http://127.0.0.1:${info.port}\n`);
});
const stop = () => {
  server.close();
  floor.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent closing stdin means it is gone: never outlive it.
process.stdin.on('end', stop);
process.stdin.resume();
