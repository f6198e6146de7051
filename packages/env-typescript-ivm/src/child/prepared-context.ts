import type ivm from 'isolated-vm';

/** The bootstrap's `deliver(id, ok, value, json)` (`json` 1: value is JSON text to parse there). */
export type Deliver = (id: number, ok: boolean, value: unknown, json?: number) => void;

/** The hooks of one execution, bound to its context when it starts (the context may be made before). */
export interface HookSlot {
  sync?: (kind: string, payload: unknown) => unknown;
  async?: (kind: unknown, args: unknown, id: unknown) => void;
}

/** A fresh context with the runtime installed: used by exactly one execution, then released. */
export interface PreparedContext {
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  readonly entry: ivm.Reference<readonly [Deliver, () => number, Begin, () => number]>;
  readonly deliver: ivm.Reference<Deliver>;
  readonly probe: ivm.Reference<() => number>;
  /** The bootstrap's `begin`: the caps and posts of the execution's writes sent without waiting. */
  readonly begin: ivm.Reference<Begin>;
  /** The bootstrap's `sent()`: how many writes it sent without waiting. */
  readonly sent: ivm.Reference<() => number>;
  readonly slot: HookSlot;
}

/** The bootstrap's `begin(stdoutCap, stderrCap, outputCap, posts)`. */
export type Begin = (stdoutCap: number, stderrCap: number, outputCap: number, posts: number) => void;

/**
 * A new context of `isolate` with the bootstrap run in it. Its hooks answer through `slot`: before
 * an execution binds it nothing can call them (no code but the bootstrap ran there), and after the
 * execution unbinds it they answer as for an ended run. Set-up runs synchronously: each async
 * isolated-vm call is a hop to the isolate's thread (≈ 0.4 ms of a trivial run).
 */
export function prepareContext(
  ivmModule: typeof ivm,
  isolate: ivm.Isolate,
  bootstrap: ivm.Script,
): PreparedContext {
  const slot: HookSlot = {};
  const context = isolate.createContextSync();
  try {
    context.global.setSync(
      '__cyrnelSync',
      new ivmModule.Callback((kind: string, payload: unknown) =>
        slot.sync ? slot.sync(kind, payload) : kind === 'output' ? 'The execution has ended' : false,
      ),
    );
    context.global.setSync(
      '__cyrnelAsync',
      new ivmModule.Callback((kind: unknown, args: unknown, id: unknown) => slot.async?.(kind, args, id), {
        ignored: true,
      }),
    );
    const entry = bootstrap.runSync(context, { reference: true });
    const deliver = entry.getSync(0, { reference: true });
    const probe = entry.getSync(1, { reference: true });
    const begin = entry.getSync(2, { reference: true });
    const sent = entry.getSync(3, { reference: true });
    return { isolate, context, entry, deliver, probe, begin, sent, slot };
  } catch (error) {
    if (!isolate.isDisposed) context.release();
    throw error;
  }
}

/** Release what a prepared context holds in its isolate (nothing to do once the isolate is gone). */
export function releaseContext(prepared: PreparedContext): void {
  prepared.slot.sync = undefined;
  prepared.slot.async = undefined;
  if (prepared.isolate.isDisposed) return;
  prepared.deliver.release();
  prepared.probe.release();
  prepared.begin.release();
  prepared.sent.release();
  prepared.entry.release();
  prepared.context.release();
}
