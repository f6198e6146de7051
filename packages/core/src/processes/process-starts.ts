import type { ProcessRecord } from '@cyrnel/sdk/api';
import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import { LiveProcess } from './live-process';
import { refuseTypeErrors } from './process-checks';
import { killEnd } from './process-errors';
import { requireProcessId, validateRunOptions } from './process-input';
import type { ProcessParts } from './process-parts';
import { checkStorageQuota } from './storage-quota';
import { validateCreateRequest } from './validate-create-request';

/** `create` and `run`: a run starts here, or (several hosts) waits in the shared queue for a host that can take it. */
export type ProcessStarts = Pick<ProcessesApi, 'create' | 'run'>;

/** Create the operations that start runs. */
export function createProcessStarts(parts: ProcessParts): ProcessStarts {
  const { storage, limits, logger, now, host, local, lookup } = parts;
  const { queue } = parts.hosts;

  const create: ProcessesApi['create'] = async (request, createOptions) => {
    if (local.closing()) throw cyrnelError('shutting_down', 'the host is shutting down');
    const valid = validateCreateRequest(request, limits);
    if (valid.plan || valid.check)
      throw cyrnelError(
        'invalid_request',
        `${valid.plan ? 'plan' : 'check'}: true is answered by processes.${valid.plan ? 'plan' : 'check'}, not create`,
      );
    const keyId = createOptions?.keyId ?? null;
    const principalId = createOptions?.principalId ?? null;
    const revoked = () => keyId !== null && parts.revokedKeys.has(keyId);
    if (revoked()) throw cyrnelError('key_revoked', 'the API key was deleted');
    if (valid.planId !== null && !parts.policies)
      throw cyrnelError('approval_not_found', `plan ${valid.planId.slice(0, 100)} not found`);
    await checkStorageQuota(storage, limits, keyId, parts.execution.live.values());
    // Each connection named must exist and be the principal's own or shared: refused now, not at the first call.
    await parts.connections?.check({ principalId, connections: valid.connections });
    // Before a slot is taken or a row written: code with type errors leaves nothing behind.
    if (valid.typecheck === 'reject') await refuseTypeErrors(parts, valid.code);
    // Several hosts: work this host cannot take now waits in the shared queue.
    const needs = host ? await queue.needsOf(valid.code) : [];
    const here = valid.autorun && queue.takesHere(needs);
    if (valid.autorun && !here) await queue.checkRoom(keyId);
    const lease = here ? local.reserve(keyId) : undefined;
    if (lease) local.hold(keyId);
    const createdAt = now().toISOString();
    const state = valid.autorun ? 'queued' : 'idle';
    // The caller's trace, continued by the run here or on the host that takes it from the queue.
    const traceContext = valid.autorun ? parts.tracing.capture(Date.parse(createdAt)) : null;
    const hostId = lease && host ? host.id : null;
    let id: number;
    let planTools: ReadonlySet<string> | undefined;
    try {
      // Taken (used) just before the insert: a plan runs once, even when two creates race for
      // it; given back when the insert fails, so a failed create does not use it up.
      if (valid.planId !== null)
        planTools = await parts.policies?.approvals.takePlan(valid.planId, valid.code, keyId);
      const { code, ref, timeoutMs, envConfig, connections } = valid;
      id = await storage.insert({
        code,
        ref,
        keyId,
        principalId,
        connections,
        timeoutMs,
        envConfig,
        state,
        createdAt,
        ...(traceContext ? { traceContext } : {}),
        ...(host ? { ownerHost: hostId, needs } : {}),
      });
    } catch (error) {
      lease?.release();
      if (planTools && valid.planId !== null)
        await parts.policies?.approvals.givePlanBack(valid.planId).catch(() => undefined);
      throw error;
    } finally {
      if (lease) local.unhold(keyId);
    }
    const record: ProcessRecord = {
      id,
      ref: valid.ref,
      keyId,
      principalId,
      state,
      exitState: null,
      error: null,
      errorReason: null,
      timeoutMs: valid.timeoutMs,
      envConfig: valid.envConfig,
      connections: valid.connections,
      createdAt,
      updatedAt: createdAt,
      startedAt: null,
      completedAt: null,
      hostId,
      labels: [],
      approvalId: null,
      metrics: null,
    };
    if (valid.planId !== null && planTools) {
      parts.policies?.calls.usePlan(id, planTools);
      await parts.policies?.approvals.planUsedBy(valid.planId, id);
    }
    const started = lease ? new LiveProcess({ ...record }, valid.code, limits) : undefined;
    if (started) started.traceContext = traceContext;
    if (started && lease) local.launch(started, lease);
    else if (valid.autorun) queue.announceQueued();
    // The key was revoked while this create was stored (its sweep may have missed the row): ended here.
    if (valid.autorun && revoked()) {
      const at = now().toISOString();
      if (started) local.kill(started, 'key_revoked');
      else
        await queue.killUnclaimed(id, {
          state: 'idle',
          exitState: 'canceled',
          ...killEnd('key_revoked'),
          completedAt: at,
          updatedAt: at,
        });
    }
    return record;
  };

  const run: ProcessesApi['run'] = async (rawId, runOptions) => {
    const id = requireProcessId(rawId);
    const { force } = validateRunOptions(runOptions);
    if (await lookup.activeRun(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    const record = await lookup.stored(id);
    if (record.state !== 'idle') throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    if (record.exitState !== null && !force) {
      throw cyrnelError('process_has_results', `process ${id} has results: run it with force to clear them`);
    }
    await checkStorageQuota(storage, limits, record.keyId, parts.execution.live.values());
    const code = (await storage.code(id)) ?? '';
    // Several hosts: a re-run this host cannot take now waits in the shared queue.
    const here = queue.takesHere(host ? await queue.needsOf(code) : []);
    if (!here) await queue.checkRoom(record.keyId);
    if (local.live.has(id)) throw cyrnelError('process_not_idle', `process ${id} is not idle`);
    const lease = here ? local.reserve(record.keyId) : undefined;
    const updatedAt = now().toISOString();
    const change = {
      state: 'queued',
      exitState: null,
      error: null,
      errorReason: null,
      startedAt: null,
      completedAt: null,
      metrics: null,
      updatedAt,
      hostId: lease && host ? host.id : null,
    } as const;
    const { hostId, ...written } = change;
    const traceContext = parts.tracing.capture(Date.parse(updatedAt));
    if (!lease) {
      await storage.reset(id, { ...written, ownerHost: null, traceContext });
      queue.announceQueued();
      return { ...record, ...change };
    }
    const started = new LiveProcess({ ...record, ...change }, code, limits);
    started.traceContext = traceContext;
    started.persist(
      () => storage.reset(id, host ? { ...written, ownerHost: hostId } : written),
      (error) => logger.error('process: storage write failed', { id, error: String(error) }),
    );
    local.launch(started, lease);
    return { ...record, ...change };
  };

  return { create, run };
}
