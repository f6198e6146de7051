import type { AdapterModule, InvokeInput, ModuleLogger } from '@cyrnel/sdk';
import { type CyrnelError, cyrnelError, isCyrnelError } from '../errors';
import { errorMessage } from '../scoped-logger';
import { timerDelay } from '../timer-delay';

/** A module's error as the host reports it: its own coded error, else `wrap(message)`. */
export function translate(error: unknown, wrap: (message: string) => CyrnelError): CyrnelError {
  return isCyrnelError(error) ? error : wrap(errorMessage(error));
}

/** Options of {@link guardedInvoke}. */
export interface GuardedInvokeOptions {
  /** Aborted when the adapter instance goes away (teardown). */
  readonly signal: AbortSignal;
  /** The call's deadline (past it: 502 `invoke_timeout`, the adapter's signal aborted). */
  readonly invokeMs: number;
  readonly logger: ModuleLogger;
}

/**
 * One `adapter.invoke` under the host's rules, wherever it runs (the host, or a sandbox process
 * for a portable adapter): a deadline, an `AbortSignal` aborted by the deadline, `options.signal`
 * or the caller's signal, and errors translated (a module's own `CyrnelError` kept, anything else
 * a 502 `upstream_failed`).
 *
 * @example
 * ```ts
 * const result = await guardedInvoke(adapter, { serviceId, toolId, parameters }, { signal, invokeMs: 60_000, logger });
 * ```
 */
export async function guardedInvoke(
  inner: Pick<AdapterModule, 'invoke'>,
  input: InvokeInput,
  options: GuardedInvokeOptions,
): Promise<unknown> {
  // One controller per call, aborted by its deadline, teardown or the caller's signal:
  // listeners rather than `AbortSignal.any`, which costs far more on this hot path.
  const call = new AbortController();
  const sources = input.signal ? [options.signal, input.signal] : [options.signal];
  let reject: (reason: unknown) => void = () => {};
  // An adapter that ignores the signal is not waited for: the abort answers the caller.
  const aborted = new Promise<never>((_, fail) => {
    reject = fail;
  });
  const abort = (reason: unknown) => {
    if (call.signal.aborted) return;
    call.abort(reason);
    reject(reason);
  };
  const onSource = (event: Event) => abort((event.target as AbortSignal).reason);
  for (const source of sources) {
    if (source.aborted) abort(source.reason);
    else source.addEventListener('abort', onSource, { once: true });
  }
  const what = `tool ${input.serviceId}.${input.toolId}`;
  const timer = setTimeout(
    () => abort(cyrnelError('invoke_timeout', `${what} timed out after ${options.invokeMs} ms`)),
    timerDelay(options.invokeMs),
  );
  try {
    return await Promise.race([inner.invoke({ ...input, signal: call.signal }), aborted]);
  } catch (error) {
    options.logger.debug('tool invocation failed', {
      service: input.serviceId,
      tool: input.toolId,
      error: errorMessage(error),
    });
    if (call.signal.aborted && isCyrnelError(call.signal.reason)) throw call.signal.reason;
    throw translate(error, (message) => cyrnelError('upstream_failed', message || `${what} failed`));
  } finally {
    clearTimeout(timer);
    for (const source of sources) source.removeEventListener('abort', onSource);
  }
}
