import { runKeyStorageContract } from '../testing/key-storage-contract';
import { runPrincipalStorageContract } from '../testing/principal-storage-contract';
import { createMemoryKeyStorage } from './memory-key-storage';

runPrincipalStorageContract({
  name: 'memory',
  create: async () => ({ storage: createMemoryKeyStorage(), close: async () => {} }),
});

// One process: every "host" is the same storage.
runKeyStorageContract({
  name: 'memory',
  async create(hosts) {
    const storage = createMemoryKeyStorage();
    return { storages: Array.from({ length: hosts }, () => storage), close: async () => {} };
  },
});
