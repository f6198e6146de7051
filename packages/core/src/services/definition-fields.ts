import { hash } from 'node:crypto';
import type { ServiceDefinition } from '@cyrnel/sdk';
import type { RegistryOrigin } from '@cyrnel/sdk/api';
import type { ServiceDefinitionFields } from '../catalog/catalog-storage';

/** What is stored with a definition besides what `generateDefinition` made of it. */
export interface DefinitionOrigin {
  readonly text: string;
  /** The UTF-8 bytes of `text`, when they were taken (to hash it): stored without encoding it again. */
  readonly utf8?: Uint8Array;
  readonly hash: string;
  readonly source: string | null;
  readonly registry: RegistryOrigin | null;
  /** Version of the adapter that generated it. */
  readonly adapterVersion: string | null;
}

/**
 * SHA-256 (hex) of a definition text or of its UTF-8 bytes (the same digest): a service's `hash`.
 * An install hashes the bytes, which the store keeps too: a 12 MB description's encoding costs as
 * much as its hash.
 */
export function sha256(text: string | Uint8Array): string {
  return hash('sha256', text, 'hex');
}

/**
 * The `hash` of a service whose tools were generated again from the same text (a refresh, a new
 * adapter version): the text's and the tools' together, so whatever is keyed by the hash (compiled
 * validators, shared schemas, rendered types) follows the new tools.
 */
export function regeneratedHash(text: string | Uint8Array, definition: ServiceDefinition): string {
  return sha256(
    `${sha256(text)}\n${JSON.stringify({ tools: definition.tools, schemas: definition.schemas ?? null, adapterDomain: definition.adapterDomain })}`,
  );
}

/**
 * The `hash` a definition is stored with at an install or an update: its text's, and its tools'
 * too when the adapter can list them again (`refreshDefinition`: an MCP server's tools change
 * while the text stays), so a refresh that lists the same tools finds the same hash. Only those
 * pay for hashing the tools (a large OpenAPI definition's would add ≈ 0.1 s to its install).
 */
export function definitionHash(
  text: string | Uint8Array,
  definition: ServiceDefinition,
  listsAgain: boolean,
): string {
  return listsAgain ? regeneratedHash(text, definition) : sha256(text);
}

/** The stored fields of a generated definition; tools enabled as `enabled(toolId)` says. */
export function definitionFields(
  definition: ServiceDefinition,
  origin: DefinitionOrigin,
  enabled: (toolId: string) => boolean,
): ServiceDefinitionFields {
  return {
    name: definition.name,
    description: definition.description,
    hash: origin.hash,
    source: origin.source,
    definition: origin.text,
    ...(origin.utf8 ? { definitionUtf8: origin.utf8 } : {}),
    configSchema: definition.configSchema,
    secretsSchema: definition.secretsSchema,
    adapterDomain: definition.adapterDomain,
    adapterVersion: origin.adapterVersion,
    registry: origin.registry,
    ...(definition.schemas ? { schemas: definition.schemas } : {}),
    tools: definition.tools.map((tool) => ({ ...tool, enabled: enabled(tool.id) })),
  };
}
