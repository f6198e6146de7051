export {
  type AuthenticatedKey,
  createKeyRing,
  hashApiKey,
  KEY_PREFIX,
  type KeyRing,
  type KeyRingOptions,
} from './key-ring';
export type { KeyRow, KeyStorage, KeyStorageQuery } from './key-storage';
export { createMemoryKeyStorage } from './memory-key-storage';
