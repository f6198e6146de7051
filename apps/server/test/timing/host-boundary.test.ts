import { describe, expect, it } from 'vitest';
import { openUnreadStream } from '../boundary-helpers';
import { useServer } from '../helpers';
import { expectHealthDuring } from './health-probe';

// The attacks on the host boundary that the main thread must refuse without stalling: /health is
// probed throughout (the rest of the boundary's attacks are in ../host-boundary.test.ts).

const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('host boundary: limits on what API clients send', () => {
  const { api, url } = useServer({ maxLiveProcesses: 1 });

  it('answers deeply nested patches and envConfig with 400 naming the depth limit, /health staying fast', async () => {
    // Bodies are built before the probe starts: the server shares this thread with the test.
    const bodies = [65, 5_000, 1_000_000].map((depth) => ({
      depth,
      patch: `[{"op":"add","path":"/x","value":${deep(depth)}}]`,
      create: `{"code":"1","envConfig":{"a":${deep(depth)}}}`,
    }));
    await expectHealthDuring('/health while nested bodies are refused', url(), async () => {
      for (const { depth, patch, create } of bodies) {
        const responses = [
          await api('PATCH', '/modules/typescript-ivm/config', patch),
          await api('PATCH', '/modules/typescript-ivm/secrets', patch),
          await api('POST', '/processes', create),
        ];
        for (const response of responses) {
          expect({ depth, status: response.status, code: response.body.code }).toEqual({
            depth,
            status: 400,
            code: 'invalid_request',
          });
          expect(response.body.error).toContain('deeper than 64 levels');
        }
      }
    });
  });

  it('answers bodies of millions of tiny values with 400 before parsing them, /health staying fast', async () => {
    // Bodies are built before the probe starts: the server shares this thread with the test.
    const values = `[${Array(3_000_000).fill('0').join(',')}]`;
    const bodies: [string, string, string][] = [
      ['PATCH', '/modules/typescript-ivm/config', `[{"op":"add","path":"/x","value":${values}}]`],
      ['POST', '/processes', `{"code":"1","envConfig":{"a":${values}}}`],
      ['POST', '/services', `{"id":"s","adapter":"openapi","definition":"x","config":${values}}`],
    ];
    const responses = await expectHealthDuring(
      '/health while bodies of millions of values are refused',
      url(),
      async () => {
        const responses = [];
        for (const [method, path, body] of bodies) responses.push(await api(method, path, body));
        return responses;
      },
    );
    for (const response of responses) {
      expect({ status: response.status, code: response.body.code }).toEqual({
        status: 400,
        code: 'invalid_request',
      });
      expect(response.body.error).toContain('more than 50000 elements');
    }
  });
});

describe('host boundary: event streams', () => {
  const { api, url } = useServer({
    maxEventStreams: 3,
    maxEventBufferBytes: 1024 * 1024,
    maxEventQueueBytes: 64 * 1024 * 1024,
  });

  it('drops streams whose replay would exceed the server-wide buffer budget, /health staying fast', async () => {
    const loud = await api('POST', '/processes', {
      code: 'console.log("x".repeat(700000)); console.error("y".repeat(700000));',
      wait: true,
    });
    expect(loud.body.exitState).toBe('success');
    await expectHealthDuring('/health while replays over the buffer budget are dropped', url(), async () => {
      const streams = [];
      for (let i = 0; i < 3; i++)
        streams.push(await openUnreadStream(url(), `/processes/${loud.body.id}/events`));
      // Read each stream to its end: a dropped one ends without the `exit` event.
      for (const { socket, first } of streams) {
        const text = await new Promise<string>((resolve) => {
          let seen = first;
          if (seen.endsWith('0\r\n\r\n')) return resolve(seen);
          socket.on('data', (chunk: Buffer) => {
            seen += chunk.toString('latin1');
            if (seen.endsWith('0\r\n\r\n')) resolve(seen);
          });
          socket.resume();
        });
        expect(text).not.toContain('event: exit');
        socket.destroy();
      }
    });
    // A small process still streams in full.
    const quiet = await api('POST', '/processes', { code: 'console.log("hi")', wait: true });
    const events = await fetch(`${url()}/processes/${quiet.body.id}/events`);
    expect(await events.text()).toContain('event: exit');
  });
});
