import type { Migration } from 'kysely/migration';
import * as catalog from './0001-catalog';
import * as processes from './0002-processes';
import * as keys from './0003-keys';
import * as toolSearch from './0004-tool-search';
import * as sharedSchemas from './0005-shared-schemas';
import * as processErrorReason from './0006-process-error-reason';
import * as serviceOrigin from './0007-service-origin';
import * as hosts from './0009-hosts';
import * as killRequests from './0010-kill-requests';
import * as sharedQueue from './0011-shared-queue';
import * as callRecords from './0013-call-records';
import * as keyUsage from './0014-key-usage';
import * as killReason from './0015-kill-reason';
import * as policies from './0016-policies';
import * as principals from './0017-principals';
import * as connections from './0018-connections';
import * as principalSubjects from './0019-principal-subjects';
import * as connectionOAuth from './0020-connection-oauth';
import * as observedOutputs from './0021-observed-outputs';
import * as traceContext from './0022-trace-context';
import * as processMetrics from './0023-process-metrics';

/** Every migration this version knows, keyed by name; names sort in the order they run. */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001-catalog': catalog,
  '0002-processes': processes,
  '0003-keys': keys,
  '0004-tool-search': toolSearch,
  '0005-shared-schemas': sharedSchemas,
  '0006-process-error-reason': processErrorReason,
  '0007-service-origin': serviceOrigin,
  '0009-hosts': hosts,
  '0010-kill-requests': killRequests,
  '0011-shared-queue': sharedQueue,
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
