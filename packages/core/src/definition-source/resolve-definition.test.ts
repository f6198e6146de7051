import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundPolicy } from '../outbound/outbound-policy';
import { resolveDefinition } from './resolve-definition';

describe('resolveDefinition', () => {
  let server: Server;
  let url: string;
  const download = { outbound: createOutboundPolicy({ allowPrivateUrls: true }), maxBytes: 1024 };

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('openapi: 3.0.0'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/spec.yaml`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers inline text as given, without a source', async () => {
    await expect(resolveDefinition({ definition: '{"openapi":"3.0.0"}' }, download)).resolves.toEqual({
      definition: '{"openapi":"3.0.0"}',
      source: null,
    });
  });

  it('downloads a url through the outbound policy, the url as the source', async () => {
    await expect(resolveDefinition({ url }, download)).resolves.toEqual({
      definition: 'openapi: 3.0.0',
      source: url,
    });
    const guarded = { ...download, outbound: createOutboundPolicy({}) };
    await expect(resolveDefinition({ url }, guarded)).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('refuses both, neither and an empty definition with a 400 naming the field', async () => {
    await expect(resolveDefinition({ url, definition: 'x' }, download)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'give either url or definition, not both',
    });
    await expect(resolveDefinition({}, download)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'either url or definition is required',
    });
    await expect(resolveDefinition({ definition: '  ' }, download)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'definition is empty',
    });
  });
});
