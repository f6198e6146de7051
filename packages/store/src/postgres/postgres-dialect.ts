import type { StoreDialect } from '../store-dialect';
import { migrations } from './migrations/index';
import { createToolSearch } from './tool-search';
import { addServiceWords, removeServiceWords, searchDocuments } from './tool-search-index';

/**
 * PostgreSQL for `createStore`: the portable migrations plus this dialect's tool search
 * (`tsvector` + GIN) and byte-order collation of the ids.
 */
export const postgresDialect: StoreDialect = {
  name: 'postgres',
  migrations,
  toolSearch: {
    columns: searchDocuments,
    add: addServiceWords,
    remove: removeServiceWords,
    search: createToolSearch,
  },
  isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === '23505',
};
