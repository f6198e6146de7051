/**
 * Every item of a paged list, in order.
 *
 * @example
 * ```ts
 * const principals = await collect(client.principals.iterate());
 * ```
 */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}
