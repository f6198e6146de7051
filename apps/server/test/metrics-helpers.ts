import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One sample of a Prometheus text exposition: its name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Every sample of a Prometheus text exposition (comments left out). */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * The sum of the samples named `name` whose labels include `labels` (0 when there is none), so a
 * test reads a counter before and after a workload and compares.
 */
export function total(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Whether some sample is named `name` with labels including `labels`. */
export function has(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): boolean {
  return samples.some(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** An upstream on 127.0.0.1 that answers every request 503 (a backend that is down). */
export async function startFailingUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"down"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port just freed): connecting there is refused. */
export async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
