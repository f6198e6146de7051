import { ValidationError } from '@cyrnel/core';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import { downloadDefinition } from '../download/download-definition';
import type { RouteContext } from './route-context';

/** Exactly one of `url` and `definition`, as install and update bodies carry them. */
export interface DefinitionFields {
  url?: string;
  definition?: string;
}

/** Resolve a body's definition: inline text, or downloaded through the outbound policy. */
export async function resolveDefinition(
  ctx: RouteContext,
  c: Context<AppEnv>,
  fields: DefinitionFields,
): Promise<{ definition: string; source: string | null }> {
  if (fields.url !== undefined && fields.definition !== undefined) {
    throw new ValidationError('give either url or definition, not both', [
      { path: 'url', message: 'conflicts with definition' },
    ]);
  }
  if (fields.definition !== undefined) {
    if (fields.definition.trim() === '') {
      throw new ValidationError('definition is empty', [
        { path: 'definition', message: 'must not be empty' },
      ]);
    }
    return { definition: fields.definition, source: null };
  }
  if (fields.url === undefined) {
    throw new ValidationError('either url or definition is required', [
      { path: 'definition', message: 'url or definition is required' },
    ]);
  }
  const definition = await downloadDefinition(fields.url, {
    outbound: ctx.outbound,
    maxBytes: ctx.maxDefinitionBytes,
    timeoutMs: ctx.downloadTimeoutMs,
    signal: c.req.raw.signal,
  });
  return { definition, source: fields.url };
}
