import type { ServiceDefinition } from '@cyrnel/sdk';
import { type RegistryOrigin, SERVICE_UPDATE_BODY, type ServiceDetail } from '@cyrnel/sdk/api';
import type { ServiceRow } from '../catalog/catalog-storage';
import type { DownloadDefinitionOptions } from '../definition-source/download-definition';
import { resolveDefinition } from '../definition-source/resolve-definition';
import type { UpdateServiceInput } from '../host/host-api';
import { errorMessage } from '../scoped-logger';
import { validateBody } from '../validation/body-schema';
import { requireIdentifier } from '../validation/input';
import { definitionHash } from './definition-fields';
import { type ServiceContext, serviceOwner } from './service-context';

/** A new definition text for a service; absent fields keep the stored ones. */
export interface ResolvedUpdate {
  readonly text: string;
  readonly source?: string | null;
  readonly registry?: RegistryOrigin | null;
  /**
   * Checked on the current row before the definition is generated and again under the service's
   * lock, before anything changes; throw to refuse.
   */
  readonly expect?: (row: ServiceRow) => void;
}

/** Updating services: by URL or inline definition, and (for registries) with a resolved one. */
export interface ServiceUpdate {
  /**
   * Validate an update request, download its `url` (with `download` over the host's options) or
   * take its `definition`, and replace the service's definition; the same text changes nothing.
   */
  update(
    serviceId: string,
    input: UpdateServiceInput,
    download?: Partial<DownloadDefinitionOptions>,
  ): Promise<ServiceDetail>;
  /** Update with a resolved definition; `updated: false` when the text is the stored one. */
  updateResolved(id: string, input: ResolvedUpdate): Promise<{ updated: boolean; service: ServiceDetail }>;
}

/** Generations of an update that may race a change of the service before the last is made under its lock. */
const UPDATE_ATTEMPTS = 3;

/** Create the updates of the services engine; `download` is how definitions are downloaded by default. */
export function createServiceUpdate(ctx: ServiceContext, download: DownloadDefinitionOptions): ServiceUpdate {
  const { catalog, registry, logger, settings, lifecycle, locked, views } = ctx;
  const { find, activeAdapter, generate, dehydrate, hydrate, replace } = lifecycle;

  /**
   * Store `definition` (generated from `input.text` at the service's state `row`), under the
   * service's lock: the service is dehydrated, its tools replaced, and it stays disabled until it
   * is enabled again.
   */
  const commit = async (
    row: ServiceRow,
    input: ResolvedUpdate,
    definition: ServiceDefinition,
  ): Promise<{ updated: boolean; service: ServiceDetail }> => {
    const { id } = row;
    const utf8 = Buffer.from(input.text, 'utf8');
    const hash = definitionHash(utf8, definition, activeAdapter(row.adapter).refreshDefinition !== undefined);
    // Dehydrated right before the new tools are stored: no call reaches the adapter with tools
    // it was not set up with. The service stays disabled until it is enabled again.
    await dehydrate(row);
    const origin = {
      text: input.text,
      utf8,
      hash,
      source: input.source === undefined ? row.source : input.source,
      registry: input.registry === undefined ? row.registry : input.registry,
      adapterVersion: registry.adapterVersion(row.adapter) ?? null,
    };
    try {
      await replace(row, definition, origin, false);
    } catch (error) {
      // Nothing was written: the row still says enabled, so the adapter must hold it again.
      const adapter = row.enabled ? registry.adapter(row.adapter) : undefined;
      if (adapter) {
        await hydrate(row, adapter).catch((rehydrateError: unknown) => {
          logger.error('service failed to hydrate again after a failed update', {
            service: id,
            error: errorMessage(rehydrateError),
          });
        });
      }
      throw error;
    }
    return { updated: true, service: views.detail(await find(id)) };
  };

  /** The request as the service is now: refused by `expect`, or unchanged when its text is the stored one. */
  const unchanged = async (row: ServiceRow, input: ResolvedUpdate): Promise<boolean> => {
    if (input.expect) input.expect(row);
    // A service's hash covers its tools too, so the texts are what is compared.
    return input.text === (await catalog.getServiceDefinitionText(row.id));
  };

  const generateFor = async (row: ServiceRow, input: ResolvedUpdate): Promise<ServiceDefinition> =>
    generate(
      activeAdapter(row.adapter),
      row.adapter,
      input.text,
      await settings.current(serviceOwner(row.id)),
    );

  /**
   * The new definition is generated without the service's lock (an MCP server lists its tools:
   * a slow one delays no enable or disable of the service), then stored under the lock if the
   * service did not change meanwhile, else generated again. After {@link UPDATE_ATTEMPTS} such
   * races the last is generated under the lock.
   */
  const updateResolved = async (
    id: string,
    input: ResolvedUpdate,
  ): Promise<{ updated: boolean; service: ServiceDetail }> => {
    for (let attempt = 1; attempt < UPDATE_ATTEMPTS; attempt++) {
      const row = await find(id);
      const seen = lifecycle.generation(row);
      if (await unchanged(row, input)) return { updated: false, service: views.detail(row) };
      const generated = await generateFor(row, input).then(
        (definition) => ({ definition }),
        (error: unknown) => ({ error }),
      );
      const done = await locked(id, async () => {
        const current = await find(id);
        if (lifecycle.generation(current) !== seen) return undefined;
        if (await unchanged(current, input)) return { updated: false, service: views.detail(current) };
        if ('error' in generated) throw generated.error;
        return commit(current, input, generated.definition);
      });
      if (done) return done;
    }
    return locked(id, async () => {
      const row = await find(id);
      if (await unchanged(row, input)) return { updated: false, service: views.detail(row) };
      return commit(row, input, await generateFor(row, input));
    });
  };

  return {
    async update(rawId, rawInput, options) {
      const input = validateBody<{ url?: string; definition?: string }>(rawInput, SERVICE_UPDATE_BODY);
      const id = requireIdentifier(rawId, 'serviceId');
      // Unknown services are refused before anything is downloaded.
      await find(id);
      const { definition, source } = await resolveDefinition(input, { ...download, ...options });
      // A definition given by hand detaches the service from its registry entry.
      return (await updateResolved(id, { text: definition, source, registry: null })).service;
    },
    updateResolved,
  };
}
