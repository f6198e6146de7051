// A tiny upstream API for the walkthrough: the weather API of weather.openapi.json, plus the
// document itself at /openapi.json (its `servers` entry pointing at this server).
//
//   node examples/upstream.mjs            # http://127.0.0.1:8787
//   PORT=9000 node examples/upstream.mjs
//
// Every API call needs the header `X-Api-Key: demo-key` (set as a cyrnel secret).
import './require-node.mjs';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const API_KEY = 'demo-key';
const FORECASTS = {
  paris: { city: 'Paris', celsius: 21.5, summary: 'sunny' },
  oslo: { city: 'Oslo', celsius: 4, summary: 'snow showers' },
  lima: { city: 'Lima', celsius: 18, summary: 'overcast' },
};
const document = JSON.parse(readFileSync(new URL('./weather.openapi.json', import.meta.url), 'utf8'));

/** Start the upstream; resolves with its base URL and a close function. */
export function startUpstream(port = 8787, host = '127.0.0.1') {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const send = (status, body) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/openapi.json') {
      return send(200, { ...document, servers: [{ url: `http://${req.headers.host}` }] });
    }
    if (req.headers['x-api-key'] !== API_KEY) return send(401, { message: 'missing or wrong X-Api-Key' });
    if (url.pathname === '/forecast') {
      const forecast = FORECASTS[(url.searchParams.get('city') ?? '').toLowerCase()];
      return forecast ? send(200, forecast) : send(404, { message: 'unknown city' });
    }
    if (url.pathname === '/convert') {
      const celsius = Number(url.searchParams.get('celsius'));
      if (!Number.isFinite(celsius)) return send(400, { message: 'celsius must be a number' });
      return send(200, { fahrenheit: Math.round(((celsius * 9) / 5) * 10 + 320) / 10 });
    }
    return send(404, { message: 'no such route' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      resolve({ url: `http://${host}:${bound}`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (import.meta.main) {
  const { url } = await startUpstream(Number(process.env.PORT ?? 8787));
  console.log(`weather upstream listening on ${url} (document: ${url}/openapi.json)`);
}
