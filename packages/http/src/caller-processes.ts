import { cyrnelError, type ProcessesApi, scopeProcesses } from '@cyrnel/core';
import type { Caller } from './app-env';

/**
 * The processes a caller may act on, the rule every front end of processes applies (`/processes`
 * and the MCP endpoint): an admin acts on every process (those it creates carry its key id); an
 * agent or an approver only on those its stored key created, another key's answering 404 like an
 * unknown id; a caller without a stored key (nobody known, on a public route group) owns nothing:
 * 403.
 *
 * @example
 * ```ts
 * const processes = callerProcesses(host.processes, c.get('caller'));
 * await processes.list({}); // an agent key's own processes only
 * ```
 */
export function callerProcesses(processes: ProcessesApi, caller: Caller): ProcessesApi {
  const { keyId, role, principalId } = caller;
  if (role === 'admin') return scopeProcesses(processes, { keyId, principalId, ownOnly: false });
  if (keyId === null) throw cyrnelError('forbidden', `the ${role} role needs a stored key to own processes`);
  return scopeProcesses(processes, { keyId, principalId, ownOnly: true });
}
