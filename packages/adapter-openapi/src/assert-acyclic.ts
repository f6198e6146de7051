import { isPlainObject } from '@cyrnel/sdk';

/**
 * Throw when a parsed value contains a reference cycle. YAML aliases can build one (`&a [*a]`); JSON
 * cannot. Shared (aliased) nodes are visited once, so the walk is linear in the number of nodes.
 */
export function assertAcyclic(root: unknown): void {
  const done = new Set<object>();
  const onPath = new Set<object>();
  const stack: Array<{ node: object; exit: boolean }> = [];
  if (typeof root === 'object' && root !== null) stack.push({ node: root, exit: false });
  while (stack.length > 0) {
    const { node, exit } = stack.pop() as { node: object; exit: boolean };
    if (exit) {
      onPath.delete(node);
      done.add(node);
      continue;
    }
    if (done.has(node)) continue;
    if (onPath.has(node)) throw new Error('definition contains a circular YAML alias');
    onPath.add(node);
    stack.push({ node, exit: true });
    const children = Array.isArray(node) ? node : isPlainObject(node) ? Object.values(node) : [];
    for (const child of children) {
      if (typeof child !== 'object' || child === null || done.has(child)) continue;
      if (onPath.has(child)) throw new Error('definition contains a circular YAML alias');
      stack.push({ node: child, exit: false });
    }
  }
}
