import type { ApprovalTables } from './approval-tables';
import type { CatalogTables } from './catalog-tables';
import type { KeyTables } from './key-tables';
import type { ProcessTables } from './process-tables';
import type { QuotaTables } from './quota-tables';

/**
 * Every table of the cyrnel database, for `Kysely<Database>`: the type of the Kysely instance
 * handed to `createStore`.
 */
export interface Database extends ApprovalTables, CatalogTables, KeyTables, ProcessTables, QuotaTables {}
