import { isPlainObject } from '@cyrnel/sdk';
import { applySecurity } from './apply-security';
import { assertValidHeaders } from './assert-valid-headers';
import {
  credentialNames,
  refuseShadowingCookies,
  refuseShadowingFields,
  refuseShadowingQuery,
} from './credential-names';
import { encodeBody } from './encode-body';
import type { TransportRequest } from './http-transport';
import type { OperationPlan, ServicePlan } from './operation-model';
import { requestTarget } from './request-target';
import { isFramingHeader, refuseReservedParameters } from './reserved-parameters';
import { serializeCookie, serializeHeader, serializePath, serializeQuery } from './serialize-parameter';
import { DEFAULT_TIMEOUT_MS, expandServerUrl, hasSecretHeaders } from './service-schemas';

/** What {@link buildRequest} needs. */
export interface BuildRequestInput {
  readonly service: ServicePlan;
  readonly operation: OperationPlan;
  readonly config: Readonly<Record<string, unknown>>;
  readonly secrets: Readonly<Record<string, unknown>>;
  readonly parameters: Readonly<Record<string, unknown>>;
}

// Framing and hop-by-hop names are dropped: the HTTP client sets them (node frames the body it sends).
function headerMap(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!isPlainObject(value)) return headers;
  for (const [name, text] of Object.entries(value))
    if (typeof text === 'string' && !isFramingHeader(name)) headers[name.toLowerCase()] = text;
  return headers;
}

function isAbsolute(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/**
 * The base URL: an operator-set `baseUrl` (one that differs from the document default) wins over every
 * server; otherwise the operation's, path's or document's server with `serverVariables` applied.
 */
export function resolveBaseUrl(
  service: ServicePlan,
  operation: OperationPlan,
  config: Readonly<Record<string, unknown>>,
): string {
  const configured = typeof config.baseUrl === 'string' && config.baseUrl !== '' ? config.baseUrl : undefined;
  if (configured !== undefined && configured !== service.defaultBaseUrl) return configured;
  const variables = isPlainObject(config.serverVariables) ? config.serverVariables : {};
  const documentServer = service.servers[0];
  const documentBase = documentServer ? expandServerUrl(documentServer, variables) : configured;
  const own = operation.servers?.[0];
  if (own) {
    const url = expandServerUrl(own, variables);
    if (isAbsolute(url)) return url;
    if (documentBase && isAbsolute(documentBase)) return new URL(url, documentBase).href;
  }
  if (documentBase && isAbsolute(documentBase)) return documentBase;
  throw new Error("no absolute base URL for this service: set 'baseUrl' in the service config");
}

/**
 * Turn validated parameters into the HTTP request (no I/O). Throws for missing credentials or path
 * values, for header values that cannot be sent, and (`invalid_parameters`, before any request) for
 * framing headers set by the caller and for any parameter that would be sent under a name a
 * credential of the call occupies (the operation's schemes, the secret headers), whatever its style makes of it (object keys become names).
 * Framing headers in `config.headers` and `secrets.headers` are dropped; the client frames the body.
 * Headers, last wins: config, the documented `Accept` (when config sets none), parameters, secret
 * headers, then the credentials of the declared security schemes.
 */
export function buildRequest(input: BuildRequestInput): TransportRequest {
  const { service, operation, config, secrets, parameters } = input;
  // Credentials, so never replaced by a parameter (a config header may be).
  const credentials = hasSecretHeaders(service) ? headerMap(secrets.headers) : {};
  const names = credentialNames(operation.security, service.securitySchemes, credentials);
  refuseReservedParameters(parameters, names);
  const slot = (name: string) => (isPlainObject(parameters[name]) ? parameters[name] : {});
  const headers = headerMap(config.headers);
  if (operation.accept && headers.accept === undefined) headers.accept = operation.accept;
  const query: string[] = operation.literalQuery ? [operation.literalQuery] : [];
  const cookies: string[] = [];
  let path = operation.path;
  for (const param of operation.parameters) {
    if (param.in === 'path') {
      const value = slot('path')[param.name];
      if (value === undefined) throw new Error(`missing path parameter '${param.name}'`);
      path = path.split(`{${param.name}}`).join(serializePath(param, value));
    } else if (param.in === 'query') {
      const pairs = serializeQuery(param, slot('query')[param.name]);
      refuseShadowingQuery(param, pairs, names);
      query.push(...pairs);
    } else if (param.in === 'header') {
      const value = slot('headers')[param.name];
      if (value !== undefined) headers[param.name.toLowerCase()] = serializeHeader(param, value);
    } else {
      const pairs = serializeCookie(param, slot('cookies')[param.name]);
      refuseShadowingCookies(param, pairs, names);
      cookies.push(...pairs);
    }
  }
  applySecurity(operation.security, service.securitySchemes, secrets, {
    headers: credentials,
    query,
    cookies,
  });
  Object.assign(headers, credentials);
  let body: Buffer | undefined;
  if (operation.body && parameters.body !== undefined) {
    refuseShadowingFields(operation.body, parameters.body, names);
    const encoded = encodeBody(operation.body, parameters.body);
    body = encoded.bytes;
    headers['content-type'] = encoded.contentType;
  }
  if (cookies.length > 0) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join('; ');
  assertValidHeaders(headers);
  const base = resolveBaseUrl(service, operation, config).replace(/\/+$/, '');
  const url = new URL(`${base}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`);
  const target = requestTarget({
    basePath: new URL(base).pathname,
    template: operation.path,
    path,
    search: url.search,
  });
  const timeoutMs =
    typeof config.timeoutMs === 'number' && config.timeoutMs > 0 ? config.timeoutMs : DEFAULT_TIMEOUT_MS;
  const credentialHeaders = Object.keys(credentials);
  return {
    url,
    target,
    method: operation.method,
    headers,
    ...(body ? { body } : {}),
    timeoutMs,
    credentialHeaders,
  };
}
