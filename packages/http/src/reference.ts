import { openApiDocument } from './openapi';

type Json = Record<string, unknown>;

/** A schema in a few words: its `$ref` name, type, enum or composition. */
function describe(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return 'any';
  const value = schema as Json;
  if (typeof value.$ref === 'string') return `\`${value.$ref.split('/').pop()}\``;
  if (Array.isArray(value.enum)) return value.enum.map((item) => `\`${JSON.stringify(item)}\``).join(' \\| ');
  if ('const' in value) return `\`${JSON.stringify(value.const)}\``;
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (Array.isArray(value[key]))
      return (value[key] as unknown[]).map(describe).join(key === 'allOf' ? ' & ' : ' \\| ');
  }
  if (value.type === 'array') return `${describe(value.items)}[]`;
  const type = Array.isArray(value.type) ? value.type.join(' \\| ') : String(value.type ?? 'any');
  if (type === 'object' && typeof value.properties === 'object') {
    const properties = value.properties as Record<string, Json>;
    if (properties.items && properties.hasMore)
      return `a page \`{items: ${describe(properties.items).replaceAll('`', '')}, nextCursor, hasMore}\``;
    return `\`{${Object.entries(properties)
      .map(([name, field]) => `${name}: ${describe(field).replaceAll('`', '')}`)
      .join(', ')}}\``;
  }
  const bounds = [
    value.maxLength === undefined ? '' : `≤ ${value.maxLength} chars`,
    value.minimum === undefined ? '' : `≥ ${value.minimum}`,
    value.maximum === undefined ? '' : `≤ ${value.maximum}`,
  ].filter(Boolean);
  return bounds.length > 0 ? `${type} (${bounds.join(', ')})` : type;
}

/** The reasons an error answer lists (`ErrorBody` narrowed to them), each in backticks. */
function reasonsOf(content: Record<string, { schema: unknown }> | undefined): string {
  const schema = content?.['application/json']?.schema as { allOf?: Json[] } | undefined;
  const narrowed = schema?.allOf?.[1] as { properties: { reason: { enum: string[] } } } | undefined;
  return (narrowed?.properties.reason.enum ?? []).map((reason) => `\`${reason}\``).join(', ');
}

/** The rows of an object schema's fields. */
function fields(schema: Json): string[] {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(
    ([name, field]) => `| \`${name}\` | ${describe(field)} | ${required.has(name) ? 'yes' : ''} |`,
  );
}

/**
 * The API reference as Markdown, rendered from {@link openApiDocument}: every route with who may
 * call it, its parameters, body fields, answer and error reasons, then every record. `API.md` in this package
 * is this text (a test keeps it current; `pnpm --filter @cyrnel/http reference` writes it).
 */
export function renderReference(version = '0.1.0'): string {
  const document = openApiDocument(version);
  const lines = [
    '# cyrnel HTTP API reference',
    '',
    '<!-- Generated from the OpenAPI document (API_ROUTES of @cyrnel/sdk/api) by `pnpm --filter @cyrnel/http reference`. -->',
    '',
    'Every route, as `GET /openapi.json` describes it. Send `Authorization: Bearer <key>` except where',
    'no key is needed. Errors answer the envelope `ErrorBody` (`{error, code, reason, details?}`); each',
    'route lists the reasons it can answer by status, and the README says what each one means ("Error reasons").',
    '',
  ];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const op = operation as Json & {
        parameters?: { name: string; in: string; schema: unknown; required: boolean }[];
        requestBody?: { required: boolean; content: Record<string, { schema: Json }> };
        responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
      };
      lines.push(`## \`${method.toUpperCase()} ${path}\``, '', String(op.summary), '');
      lines.push(
        `Who: ${Array.isArray(op.security) && op.security.length === 0 ? 'no key needed.' : String(op.description)}`,
        '',
      );
      if (op.parameters && op.parameters.length > 0) {
        lines.push('| parameter | in | type |', '| --- | --- | --- |');
        for (const parameter of op.parameters)
          lines.push(`| \`${parameter.name}\` | ${parameter.in} | ${describe(parameter.schema)} |`);
        lines.push('');
      }
      const body = op.requestBody?.content['application/json']?.schema;
      if (body) {
        if (body.type === 'object' && body.properties && Object.keys(body.properties).length > 0) {
          lines.push(
            `Body${op.requestBody?.required ? '' : ' (optional)'}: a JSON object, no other field.`,
            '',
          );
          lines.push('| field | type | required |', '| --- | --- | --- |', ...fields(body), '');
        } else if (body.type === 'object') {
          lines.push('Body: none, or `{}`.', '');
        } else {
          lines.push(
            `Body: ${describe(body)}${body.description ? ` — ${String(body.description)}` : ''}.`,
            '',
          );
        }
      }
      const [success, ...errors] = Object.entries(op.responses);
      const [status, answer] = success as [string, (typeof op.responses)[string]];
      const [[media, content] = [], ...alternatives] = Object.entries(answer.content ?? {});
      const followed = alternatives.map(([type]) => `, or \`${type}\` when followed`).join('');
      lines.push(
        `Answer: ${status}${media ? ` \`${media}\`` : ''}${content ? ` ${describe(content.schema)}` : ''}${followed}.`,
        '',
      );
      if (errors.length > 0) {
        const reasons = errors.map(([code, error]) => `${code} ${reasonsOf(error.content)}`);
        lines.push(`Errors: ${reasons.join('; ')}.`, '');
      }
    }
  }
  lines.push('## Records', '');
  const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
  for (const [name, schema] of Object.entries(schemas)) {
    lines.push(`### \`${name}\``, '');
    const parts = Array.isArray(schema.allOf) ? (schema.allOf as Json[]) : [schema];
    const base = parts.filter((part) => typeof part.$ref === 'string').map(describe);
    if (base.length > 0) lines.push(`Everything of ${base.join(', ')}, and:`, '');
    const rows = parts.filter((part) => part.properties).flatMap(fields);
    if (rows.length > 0) lines.push('| field | type | required |', '| --- | --- | --- |', ...rows, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
