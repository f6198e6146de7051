/**
 * Set an own, enumerable property, even for the key `__proto__` (which a plain assignment would
 * turn into a prototype change, losing a property a document legitimately named so).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
