import type { CatalogChange, DirectCallRuntime, DirectCallRuntimeFactory } from '@cyrnel/sdk';
import { toCallError } from '../shared/call-error';
import type { ChildCallKind } from '../shared/sandbox-protocol';
import type { AuditLog } from './audit-log';

/** Options of {@link createDirectToolCalls}. */
export interface DirectToolCallsOptions {
  /** `DirectCalls.runtimeUrl` of the host; absent, every tool call goes through the host. */
  readonly runtimeUrl: string | undefined;
  /** Ask the host (its gate, or the preparation of a direct call). */
  readonly hostCall: (eid: number, kind: ChildCallKind, args: readonly unknown[]) => Promise<unknown>;
  /** Aborted when execution `eid` is killed or ends; undefined once it ended. */
  readonly endingOf: (eid: number) => AbortSignal | undefined;
  readonly audit: AuditLog;
}

/** The tool calls of a sandbox child: made here for portable adapters, else through the host. */
export interface DirectToolCalls {
  /**
   * A tool call: made here when the runtime routes it (a portable adapter's enabled tool, valid
   * parameters), else through the host's gate. Each direct call is reported at its start and,
   * before the sandbox sees its answer, at its end: a crash right after loses no record.
   */
  invoke(eid: number, args: readonly unknown[]): Promise<unknown>;
  /** The catalog changed: drop what was prepared (settles once the runtime has). */
  changed(change: CatalogChange): Promise<void>;
}

/**
 * Create the child's tool calls. The host's runtime loads on the first tool call, so a child whose
 * programs never call a tool never loads it.
 */
export function createDirectToolCalls(options: DirectToolCallsOptions): DirectToolCalls {
  const { runtimeUrl, hostCall, endingOf, audit } = options;
  let runtime: Promise<DirectCallRuntime | undefined> | undefined;
  let nextDirect = 1;
  const directRuntime = () => {
    runtime ??= import(runtimeUrl as string).then(
      (loaded: { createDirectCallRuntime?: DirectCallRuntimeFactory }) => loaded.createDirectCallRuntime?.(),
      () => undefined,
    );
    return runtime;
  };

  return {
    async invoke(eid, args) {
      if (runtimeUrl === undefined) return hostCall(eid, 'invoke', args);
      const direct = await directRuntime();
      const [serviceId, toolId, parameters] = args;
      const call = await direct?.route(serviceId, toolId, parameters, (s, t) =>
        hostCall(eid, 'prepareDirect', [s, t]),
      );
      const ending = endingOf(eid);
      if (!call || !ending) return hostCall(eid, 'invoke', args);
      const id = nextDirect++;
      const started = performance.now();
      const end = audit.started(eid, {
        kind: 'start',
        id,
        serviceId: serviceId as string,
        toolId: toolId as string,
        startedAt: Date.now(),
      });
      try {
        const value = await call.run(ending);
        end({
          kind: 'end',
          id,
          ok: true,
          errorCode: null,
          errorReason: null,
          durationMs: performance.now() - started,
        });
        return value;
      } catch (error) {
        const failure = toCallError(error);
        end({
          kind: 'end',
          id,
          ok: false,
          errorCode: failure.code,
          errorReason: failure.reason,
          durationMs: performance.now() - started,
        });
        throw failure;
      }
    },
    async changed(change) {
      await (await runtime)?.changed(change);
    },
  };
}
