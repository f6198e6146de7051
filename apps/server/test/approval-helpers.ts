import { shopSpec } from './helpers';

/**
 * The shop with one more operation, `createOrder` (`POST /orders`): not read-only, so the
 * default policies ask a person before the program may call it; the reads are allowed.
 */
export function askingShopSpec(baseUrl: string): Record<string, unknown> {
  const spec = shopSpec(baseUrl) as { paths: Record<string, Record<string, unknown>> };
  return {
    ...spec,
    paths: {
      ...spec.paths,
      '/orders': {
        ...spec.paths['/orders'],
        post: {
          operationId: 'createOrder',
          summary: 'Create an order',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { userId: { type: 'integer' }, amount: { type: 'number' } },
                },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
}

/**
 * A program that outputs and prints before the call a person must approve, and afterwards the
 * call's status, or the reason it failed.
 */
export const ASKING_CODE = `
cyrnel.output({ step: 'before' });
console.log('asking');
try {
  const made = await cyrnel.services.shop.tools.createOrder.invoke({ body: { userId: 7, amount: 12 } });
  cyrnel.output({ step: 'after', status: made.status });
} catch (error) {
  cyrnel.output({ step: 'failed', reason: (error as { reason?: string }).reason });
}
`;

/** The line of {@link ASKING_CODE} that calls `createOrder` (1-based). */
export const ASKING_LINE = ASKING_CODE.split('\n').findIndex((line) => line.includes('createOrder')) + 1;

/**
 * The server's default policies of these tests, given explicitly: read-only tools allowed, every
 * other asks (the default out of the box, which other suites' servers may change).
 */
export const ASKING_POLICY = 'default=ask,readOnly=allow';
