import { runApprovalStorageContract } from '../testing/approval-storage-contract';
import { createMemoryApprovalStorage } from './memory-approval-storage';

runApprovalStorageContract({
  name: 'memory',
  create: async () => ({ storage: createMemoryApprovalStorage(), close: async () => {} }),
});
