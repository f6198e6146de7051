import { createMemoryProcessStorage } from '../index';
import { runProcessStorageContract } from '../testing/index';

// The kit proven on core's in-memory storage (the SQLite store runs it in @cyrnel/store).
runProcessStorageContract({
  name: 'memory',
  create: async () => ({ storage: createMemoryProcessStorage(), close: async () => {} }),
});
