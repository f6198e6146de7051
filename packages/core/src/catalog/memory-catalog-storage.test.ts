import { createMemoryCatalogStorage } from '../index';
import { runCatalogStorageContract } from '../testing/index';

// The kit proven on core's in-memory storage (the SQLite and PostgreSQL stores run it in @cyrnel/store).
runCatalogStorageContract({
  name: 'memory',
  create: async () => ({ storage: createMemoryCatalogStorage(), close: async () => {} }),
});
