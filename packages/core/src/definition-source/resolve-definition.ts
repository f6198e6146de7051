import { cyrnelError } from '../errors';
import { type DownloadDefinitionOptions, downloadDefinition } from './download-definition';

/** Exactly one of `url` and `definition`, as install and update requests carry them. */
export interface DefinitionFields {
  readonly url?: string;
  readonly definition?: string;
}

/** A definition's text and where it came from (`source` of the service: the URL, or null). */
export interface ResolvedDefinition {
  readonly definition: string;
  readonly source: string | null;
}

/**
 * Resolve an install or update request's definition, for any front end (HTTP, MCP): inline
 * text as given, or downloaded from `url` through the outbound policy
 * ({@link downloadDefinition}). Both, neither or an empty text are a 400 naming the field.
 *
 * @example
 * ```ts
 * const { definition, source } = await resolveDefinition(
 *   { url: 'https://petstore3.swagger.io/api/v3/openapi.json' },
 *   { outbound: createOutboundPolicy({}), maxBytes: 64 << 20, timeoutMs: 30_000 },
 * );
 * await host.services.install({ id: 'pets', adapter: 'openapi', definition, source });
 * ```
 */
export async function resolveDefinition(
  fields: DefinitionFields,
  download: DownloadDefinitionOptions,
): Promise<ResolvedDefinition> {
  if (fields.url !== undefined && fields.definition !== undefined) {
    throw cyrnelError('invalid_request', 'give either url or definition, not both', {
      details: [{ path: 'url', message: 'conflicts with definition' }],
    });
  }
  if (fields.definition !== undefined) {
    if (fields.definition.trim() === '') {
      throw cyrnelError('invalid_definition', 'definition is empty', {
        details: [{ path: 'definition', message: 'must not be empty' }],
      });
    }
    return { definition: fields.definition, source: null };
  }
  if (fields.url === undefined) {
    throw cyrnelError('invalid_request', 'either url or definition is required', {
      details: [{ path: 'definition', message: 'url or definition is required' }],
    });
  }
  return { definition: await downloadDefinition(fields.url, download), source: fields.url };
}
