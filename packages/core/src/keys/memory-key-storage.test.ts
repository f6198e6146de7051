import { runPrincipalStorageContract } from '../testing/principal-storage-contract';
import { createMemoryKeyStorage } from './memory-key-storage';

runPrincipalStorageContract({
  name: 'memory',
  create: async () => ({ storage: createMemoryKeyStorage(), close: async () => {} }),
});
