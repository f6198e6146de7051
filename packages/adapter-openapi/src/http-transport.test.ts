import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport } from './http-transport';

const TEXT = 'x'.repeat(2000);
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const encoders: Record<string, (b: Buffer) => Buffer> = {
      gzip: gzipSync,
      deflate: deflateSync,
      br: brotliCompressSync,
    };
    const encoding = req.url?.slice(1) ?? '';
    const encode = encoders[encoding];
    res.writeHead(200, {
      'content-type': 'text/plain',
      ...(encode ? { 'content-encoding': encoding } : {}),
      'x-multi': ['a', 'b'],
    });
    res.end(encode ? encode(Buffer.from(TEXT)) : TEXT);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('createHttpTransport', () => {
  it('does decode gzip, deflate and br bodies and join repeated headers', async () => {
    const transport = createHttpTransport();
    for (const encoding of ['plain', 'gzip', 'deflate', 'br']) {
      const response = await transport.send({
        url: new URL(`${base}/${encoding}`),
        method: 'get',
        headers: {},
        timeoutMs: 5000,
      });
      expect([encoding, response.body.toString()]).toEqual([encoding, TEXT]);
      expect(response.headers['x-multi']).toBe('a, b');
    }
    transport.close();
  });

  it('does fail a response body beyond the size limit, compressed or not', async () => {
    const transport = createHttpTransport({ maxResponseBytes: 1000 });
    const host = new URL(base).host;
    await expect(
      transport.send({ url: new URL(`${base}/plain`), method: 'get', headers: {}, timeoutMs: 5000 }),
    ).rejects.toThrow(`request to ${host} failed: response body larger than 1000 bytes`);
    // 2,000 bytes that compress to a few dozen: the limit applies after decompression.
    await expect(
      transport.send({ url: new URL(`${base}/gzip`), method: 'get', headers: {}, timeoutMs: 5000 }),
    ).rejects.toThrow(`request to ${host} failed: ERR_BUFFER_TOO_LARGE`);
    // A reason of its own, which the sandbox can branch on.
    await expect(
      transport.send({ url: new URL(`${base}/plain`), method: 'get', headers: {}, timeoutMs: 5000 }),
    ).rejects.toMatchObject({ reason: 'upstream_answer_too_large' });
    transport.close();
  });
});
