import { describe, expect, it } from 'vitest';
import { useServer } from './helpers';

describe('sandbox scheduling and the timeout limit', () => {
  const { api } = useServer({ maxTimeoutMs: 120_000 });

  it('refuses a timeoutMs above --max-timeout-ms with 400 naming the limit', async () => {
    const refused = await api('POST', '/processes', { code: 'cyrnel.output({});', timeoutMs: 120_001 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request' });
    expect(refused.body.error).toContain('at most 120000');
    const accepted = await api('POST', '/processes', { code: 'x', timeoutMs: 120_000, autorun: false });
    expect(accepted.status).toBe(201);
  });
});
