import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  /** Milliseconds since the epoch; Infinity when the provider gave no lifetime. */
  expiresAt: number;
}

/**
 * The provider's storage for one test server: a `Map` of its own (the provider's built-in memory
 * adapter is one store shared by every provider in the process, bounded at 1,000 entries), with
 * lifetimes honoured on read and grants revocable as a whole.
 */
export function memoryAdapterFactory(): (model: string) => Adapter {
  const entries = new Map<string, Entry>();
  const read = (key: string | undefined): AdapterPayload | undefined => {
    if (key === undefined) return undefined;
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  const lookup = (index: string, value: string, model: string) => {
    for (const [key, entry] of entries) {
      if (key.startsWith(`${model}:`) && entry.payload[index as keyof AdapterPayload] === value)
        return read(key);
    }
    return undefined;
  };
  return (model) => ({
    async upsert(id, payload, expiresIn) {
      const expiresAt =
        typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY;
      entries.set(`${model}:${id}`, { payload, expiresAt });
    },
    async find(id) {
      return read(`${model}:${id}`);
    },
    async findByUid(uid) {
      return lookup('uid', uid, model);
    },
    async findByUserCode(userCode) {
      return lookup('userCode', userCode, model);
    },
    async consume(id) {
      const payload = read(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id) {
      entries.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId) {
      for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key);
    },
  });
}
