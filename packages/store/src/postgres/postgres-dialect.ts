import type { StoreDialect } from '../store-dialect';
import { migrations } from './migrations/index';
import { createToolSearch } from './tool-search';
import { indexServiceTools } from './tool-search-index';

/**
 * PostgreSQL for `createStore` (issue 22): the portable migrations plus this dialect's tool
 * search (`tsvector` + GIN) and byte-order collation of the ids.
 */
export const postgresDialect: StoreDialect = {
  name: 'postgres',
  migrations,
  // The document is a column of the tool row: removing the rows removes it.
  toolSearch: { add: indexServiceTools, remove: async () => {}, search: createToolSearch },
  isUniqueViolation: (error) => (error as { code?: unknown } | null)?.code === '23505',
};
