import type { TypeDiagnostic } from '@cyrnel/sdk';
import { cyrnelError } from '../errors';
import type { ProcessesApi } from '../host/host-api';
import type { ProcessParts } from './process-parts';
import { validateCreateRequest } from './validate-create-request';

/** The host's type check, or 503 when this host has none. */
function typeCheckOf(parts: ProcessParts): NonNullable<ProcessParts['typeCheck']> {
  if (!parts.typeCheck) throw cyrnelError('module_unavailable', 'this host cannot type-check code');
  return parts.typeCheck;
}

/** `check`: the code's type errors (`POST /processes` with `check: true`), nothing stored or run. */
export function createProcessChecks(parts: ProcessParts): ProcessesApi['check'] {
  return async (request) => {
    const valid = validateCreateRequest(request, parts.limits);
    if (!valid.check) throw cyrnelError('invalid_request', 'a type check is asked for with check: true');
    return { diagnostics: await typeCheckOf(parts)(valid.code) };
  };
}

/** The first diagnostic, said as a person reads it. */
function describe(diagnostic: TypeDiagnostic): string {
  const message = diagnostic.message.split('\n')[0]?.slice(0, 300) ?? '';
  return `line ${diagnostic.line}, column ${diagnostic.column}: ${message} (TS${diagnostic.code})`;
}

/**
 * `typecheck: 'reject'`: refuse code with type errors (400 `type_error`, the diagnostics in
 * `details`) before anything is stored or run.
 */
export async function refuseTypeErrors(parts: ProcessParts, code: string): Promise<void> {
  const diagnostics = await typeCheckOf(parts)(code);
  const first = diagnostics[0];
  if (!first) return;
  const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more, see details)` : '';
  throw cyrnelError('type_error', `the code has type errors, so it was not run: ${describe(first)}${more}`, {
    details: diagnostics,
  });
}
