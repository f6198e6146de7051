import { isJsonText, type JSONSchema, type ModuleLogger } from '@cyrnel/sdk';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { errorMessage } from '../scoped-logger';
import { declaresOutput } from './declares-output';
import { boundShape, mergeShapes } from './merge-shapes';
import { observeShape } from './observe-shape';
import { OBSERVED_LIMITS, type ObservedLimits } from './observed-limits';
import type { ObservedShape } from './observed-shape';
import { readShape } from './read-shape';

/** Options of {@link createOutputObserver}. */
export interface OutputObserverOptions {
  readonly catalog: Pick<CatalogStorage, 'getTool' | 'getService' | 'updateObservedOutput'>;
  /** Changes whenever the catalog may have changed, here or on another host: what was read is read again. */
  readonly state: () => string;
  readonly logger: ModuleLogger;
  /** Whether a key holds a secret the host knows (its object is then observed as a map). */
  readonly isSecret?: (key: string) => boolean;
  readonly limits?: ObservedLimits;
}

/** Learns the shapes of tool results (see {@link createOutputObserver}). */
export interface OutputObserver {
  /** Offer one result of a tool; returns at once (the work happens after this turn of the event loop). */
  observe(serviceId: string, toolId: string, value: unknown): void;
  /** Resolves once every result offered so far was looked at and what changed was written. */
  settled(): Promise<void>;
}

// Once this many results in a row changed nothing, only one result in CALM_EVERY is looked at.
const CALM_AFTER = 16;
const CALM_EVERY = 8;
// Conditional writes lost to other hosts before this host gives up on what it holds.
const MAX_CONFLICTS = 3;
// Tools whose state one host keeps (the oldest is dropped; it is read again when called).
const MAX_TRACKED = 10_000;

/** What one host knows of one tool. */
interface ToolEntry {
  /** The state what follows was read at (undefined: read it again). */
  state: string | undefined;
  /** It declares no output schema and its service observes outputs. */
  eligible: boolean;
  /** The stored shape, as read or last written: what a conditional write expects. */
  expected: JSONSchema | null;
  /** `expected` as a shape (undefined: none, or not one this version reads). */
  known: ObservedShape | undefined;
  /** Results looked at and not written yet, merged. */
  pending: ObservedShape | undefined;
  calm: number;
  skipped: number;
  flushing: Promise<void> | undefined;
}

/**
 * Create the observer of tool results. For a tool that declares no output schema (see
 * `declaresOutput`) of a service that observes outputs, each result's shape (`observeShape`: a
 * bounded walk, types only) is merged into what this host knows; only a merge that changes the
 * shape is written, with `updateObservedOutput`, a conditional write on the stored shape, so
 * hosts sharing a database merge into one another's (a lost write reads the store again). After
 * warm-up nothing is written, and once results stop changing anything only one in eight is
 * walked. JSON text handed on unparsed (`JsonText`, large MCP answers parsed in a worker) is not
 * observed: parsing it here is what handing it on avoids.
 *
 * @example
 * ```ts
 * const observer = createOutputObserver({ catalog, state: () => String(revision()), logger });
 * observer.observe('everything', 'get_sum', { sum: 3 }); // later: { type: 'object', properties: { sum: … } }
 * ```
 */
export function createOutputObserver(options: OutputObserverOptions): OutputObserver {
  const { catalog, state, logger } = options;
  const limits = options.limits ?? OBSERVED_LIMITS;
  const entries = new Map<string, ToolEntry>();
  const tasks = new Set<Promise<void>>();
  const merged = (a: ObservedShape | undefined, b: ObservedShape) =>
    boundShape(a === undefined ? b : mergeShapes(a, b, limits), limits);

  const entryOf = (key: string): ToolEntry => {
    let entry = entries.get(key);
    if (entry) return entry;
    entry = {
      state: undefined,
      eligible: true,
      expected: null,
      known: undefined,
      pending: undefined,
      calm: 0,
      skipped: 0,
      flushing: undefined,
    };
    if (entries.size >= MAX_TRACKED) {
      const [oldest] = entries.keys();
      if (oldest !== undefined) entries.delete(oldest);
    }
    entries.set(key, entry);
    return entry;
  };

  const load = async (entry: ToolEntry, serviceId: string, toolId: string) => {
    const label = state();
    const tool = await catalog.getTool(serviceId, toolId);
    const service = tool && (await catalog.getService(serviceId));
    entry.eligible = Boolean(tool && service?.observeOutputs && !declaresOutput(tool.outputSchema));
    entry.expected = tool?.observedOutput ?? null;
    entry.known = entry.expected === null ? undefined : readShape(entry.expected, limits);
    entry.state = label;
  };

  const flush = async (entry: ToolEntry, serviceId: string, toolId: string) => {
    let conflicts = 0;
    while (entry.pending) {
      if (entry.state !== state()) await load(entry, serviceId, toolId);
      const shape = entry.pending;
      entry.pending = undefined;
      if (!entry.eligible) return;
      const base = entry.known;
      const next = merged(base, shape);
      if (base !== undefined && (next === base || JSON.stringify(next) === JSON.stringify(base))) {
        entry.calm++;
        continue;
      }
      entry.calm = 0;
      if (await catalog.updateObservedOutput(serviceId, toolId, entry.expected, next as JSONSchema)) {
        entry.expected = next as JSONSchema;
        entry.known = next;
        continue;
      }
      // Another host wrote first, or the switch was turned off: read again, merge into theirs.
      entry.state = undefined;
      entry.pending = entry.pending ? merged(shape, entry.pending) : shape;
      if (++conflicts > MAX_CONFLICTS) entry.pending = undefined;
    }
  };

  const offer = (serviceId: string, toolId: string, shape: ObservedShape): Promise<void> | undefined => {
    const entry = entryOf(`${serviceId}\u0000${toolId}`);
    entry.pending = merged(entry.pending, shape);
    if (entry.flushing) return entry.flushing;
    entry.flushing = flush(entry, serviceId, toolId)
      .catch((error: unknown) => {
        entry.pending = undefined;
        entry.state = undefined;
        logger.warn('observing a tool result failed', {
          service: serviceId,
          tool: toolId,
          error: errorMessage(error),
        });
      })
      .finally(() => {
        entry.flushing = undefined;
      });
    return entry.flushing;
  };

  return {
    observe(serviceId, toolId, value) {
      if (isJsonText(value)) return;
      const entry = entries.get(`${serviceId}\u0000${toolId}`);
      if (entry && entry.state === state() && !entry.eligible) return;
      if (entry && entry.calm >= CALM_AFTER && ++entry.skipped % CALM_EVERY !== 0) return;
      // After this turn: the answer goes back to its caller first.
      const task = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => {
          const shape = observeShape(value, {
            limits,
            ...(options.isSecret ? { isSecret: options.isSecret } : {}),
          });
          return shape && offer(serviceId, toolId, shape);
        })
        .catch((error: unknown) =>
          logger.warn('observing a tool result failed', {
            service: serviceId,
            tool: toolId,
            error: errorMessage(error),
          }),
        )
        .finally(() => tasks.delete(task));
      tasks.add(task);
    },
    async settled() {
      while (tasks.size > 0) await Promise.all([...tasks]);
    },
  };
}
