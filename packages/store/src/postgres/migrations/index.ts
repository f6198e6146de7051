import type { Migration } from 'kysely/migration';
import * as catalog from '../../sqlite/migrations/0001-catalog';
import * as processes from '../../sqlite/migrations/0002-processes';
import * as keys from '../../sqlite/migrations/0003-keys';
import * as sharedSchemas from '../../sqlite/migrations/0005-shared-schemas';
import * as processErrorReason from '../../sqlite/migrations/0006-process-error-reason';
import * as serviceOrigin from '../../sqlite/migrations/0007-service-origin';
import * as hosts from '../../sqlite/migrations/0009-hosts';
import * as killRequests from '../../sqlite/migrations/0010-kill-requests';
import * as sharedQueue from '../../sqlite/migrations/0011-shared-queue';
import * as callRecords from '../../sqlite/migrations/0013-call-records';
import * as keyUsage from '../../sqlite/migrations/0014-key-usage';
import * as killReason from '../../sqlite/migrations/0015-kill-reason';
import * as policies from '../../sqlite/migrations/0016-policies';
import * as principals from '../../sqlite/migrations/0017-principals';
import * as connections from '../../sqlite/migrations/0018-connections';
import * as principalSubjects from '../../sqlite/migrations/0019-principal-subjects';
import * as connectionOAuth from '../../sqlite/migrations/0020-connection-oauth';
import * as observedOutputs from '../../sqlite/migrations/0021-observed-outputs';
import * as traceContext from '../../sqlite/migrations/0022-trace-context';
import * as processMetrics from '../../sqlite/migrations/0023-process-metrics';
import * as toolSearch from './0004-tool-search';
import * as collation from './0008-c-collation';
import * as toolSearchFunction from './0012-tool-search-function';

/**
 * The PostgreSQL migrations: the portable ones are SQLite's own (written for both), tool search
 * is this dialect's, and byte-order collation is PostgreSQL's only.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001-catalog': catalog,
  '0002-processes': processes,
  '0003-keys': keys,
  '0004-tool-search': toolSearch,
  '0005-shared-schemas': sharedSchemas,
  '0006-process-error-reason': processErrorReason,
  '0007-service-origin': serviceOrigin,
  '0008-c-collation': collation,
  '0009-hosts': hosts,
  '0010-kill-requests': killRequests,
  '0011-shared-queue': sharedQueue,
  '0012-tool-search-function': toolSearchFunction,
  '0013-call-records': callRecords,
  '0014-key-usage': keyUsage,
  '0015-kill-reason': killReason,
  '0016-policies': policies,
  '0017-principals': principals,
  '0018-connections': connections,
  '0019-principal-subjects': principalSubjects,
  '0020-connection-oauth': connectionOAuth,
  '0021-observed-outputs': observedOutputs,
  '0022-trace-context': traceContext,
  '0023-process-metrics': processMetrics,
};
