/** The shop with `createOrder` (`POST /orders`), which asks by default; shared with the policy tests. */
import { beforeAll } from 'vitest';
import { useShopServer } from './helpers';
import { ordersSpec } from './policy-helpers';

export { ordersSpec as askingShopSpec };

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

/**
 * A server with the shop whose `createOrder` asks for a person's approval ({@link ASKING_POLICY}),
 * a person's admin key and an agent key: the set-up of the approval tests over MCP.
 */
export function useAskingShop(adminKey: string) {
  const shop = useShopServer({ apiKey: adminKey, defaultPolicy: ASKING_POLICY }, ordersSpec);
  let person: { id: string; key: string } | undefined;
  let agentKey: string | undefined;
  beforeAll(async () => {
    person = (await shop.api('POST', '/keys', { name: 'person', role: 'admin' })).body;
    agentKey = (await shop.api('POST', '/keys', { name: 'agent', role: 'agent' })).body.key;
  });
  const made = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useAskingShop: the keys are not made before beforeAll ran');
    return value;
  };
  return { ...shop, person: () => made(person), agentKey: () => made(agentKey) };
}
