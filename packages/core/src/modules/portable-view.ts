import type { AdapterModule, PortableAdapter, ServiceState } from '@cyrnel/sdk';

/** What the host knows of a set-up portable adapter, for direct calls. */
export interface PortableView {
  readonly portable: PortableAdapter;
  /** The adapter's deadline per call. */
  readonly invokeMs: number;
  /** The config and secrets it was set up with (undefined before `setup`). */
  setup():
    | { readonly config: Record<string, unknown>; readonly secrets: Record<string, unknown> }
    | undefined;
  /** The snapshot the host hydrated `serviceId` with (undefined when not hydrated). */
  state(serviceId: string): ServiceState | undefined;
}

const portableViews = new WeakMap<AdapterModule, PortableView>();

/** Records what the host knows of `guarded`, a guarded portable adapter. */
export function registerPortableView(guarded: AdapterModule, view: PortableView): void {
  portableViews.set(guarded, view);
}

/** The {@link PortableView} of a guarded adapter, when its module declared `portable`. */
export function portableView(adapter: AdapterModule | undefined): PortableView | undefined {
  return adapter ? portableViews.get(adapter) : undefined;
}

/** The declaration when it has the documented shape (a module may say anything). */
export function portableOf(inner: AdapterModule): PortableAdapter | undefined {
  const declared: unknown = inner.portable;
  if (typeof declared !== 'object' || declared === null) return undefined;
  const { moduleUrl, exportName } = declared as Record<string, unknown>;
  if (typeof moduleUrl !== 'string' || !moduleUrl.startsWith('file:') || typeof exportName !== 'string')
    return undefined;
  return { moduleUrl, exportName };
}
