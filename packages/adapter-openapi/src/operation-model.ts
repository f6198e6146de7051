import type { OAuthSchemePlan } from './oauth-flows';

/** Where a parameter goes. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** How one parameter is serialised at invoke time (kept in the tool's adapterDomain). */
export interface ParameterPlan {
  /** Parameter name as sent on the wire. */
  readonly name: string;
  /** Location. */
  readonly in: ParameterLocation;
  /** OpenAPI style (`form`, `simple`, ... or `tabDelimited` for Swagger 2.0 `tsv`). */
  readonly style: string;
  /** OpenAPI explode. */
  readonly explode: boolean;
  /** Query only: leave RFC 3986 reserved characters unencoded. */
  readonly allowReserved?: boolean;
  /** Set for parameters described with `content`: the value is serialised with this media type. */
  readonly contentType?: string;
}

/** How the request body is encoded. */
export type BodyKind = 'json' | 'form' | 'multipart' | 'text' | 'binary';

/** Per-property encoding of form and multipart bodies. */
export interface PropertyEncoding {
  /** Part content type (multipart). */
  readonly contentType?: string;
  /** Form style of the property (urlencoded). */
  readonly style?: string;
  /** Form explode of the property (urlencoded). */
  readonly explode?: boolean;
  /** Leave reserved characters unencoded (urlencoded). */
  readonly allowReserved?: boolean;
  /** The property is a file: its part carries a filename. */
  readonly file?: boolean;
  /** 3.1 `contentEncoding: base64`: the part carries base64 text, so a file value is sent undecoded. */
  readonly base64?: boolean;
}

/** How the body slot becomes bytes. */
export interface BodyPlan {
  /** The media type sent as Content-Type. */
  readonly mediaType: string;
  /** Encoder. */
  readonly kind: BodyKind;
  /** Form / multipart property encodings. */
  readonly encoding?: Readonly<Record<string, PropertyEncoding>>;
}

/** Everything `invoke` needs for one tool: the tool's adapterDomain. */
export interface OperationPlan {
  /** Lower-case HTTP method. */
  readonly method: string;
  /** Path template, e.g. `/pets/{petId}` (a `paths` key's query string is not part of it). */
  readonly path: string;
  /** Literal query pairs of the `paths` key (`a=b&flag`), sent as written before the parameters. */
  readonly literalQuery?: string;
  /** Parameters in document order. */
  readonly parameters: readonly ParameterPlan[];
  /** Body encoding, when the operation takes a body. */
  readonly body?: BodyPlan;
  /** Security alternatives (each a list of scheme names); empty = no auth. */
  readonly security: readonly (readonly string[])[];
  /** Path- or operation-level servers (URL templates with variable defaults), overriding the document's. */
  readonly servers?: readonly ServerPlan[];
  /** Accept header value from the documented response media types. */
  readonly accept?: string;
}

/** A server URL template with its variables' defaults and allowed values. */
export interface ServerPlan {
  /** URL template, e.g. `https://{region}.example.com/v1`. */
  readonly url: string;
  /** Variable defaults. */
  readonly variables: Readonly<Record<string, string>>;
}

/** How one security scheme is applied (service adapterDomain). */
export interface SecuritySchemePlan {
  /** `apiKey`, `http`, `oauth2`, `openIdConnect`, `mutualTLS`. */
  readonly type: string;
  /** apiKey: header, query or cookie. */
  readonly in?: string;
  /** apiKey: parameter name. */
  readonly name?: string;
  /** http: the scheme (`basic`, `bearer`, ...), lower-case. */
  readonly scheme?: string;
}

/** The service-level adapterDomain. */
export interface ServicePlan {
  /** Document-level servers. */
  readonly servers: readonly ServerPlan[];
  /** The config default for `baseUrl` (absent when no absolute server is declared). */
  readonly defaultBaseUrl?: string;
  /** Security schemes by name. */
  readonly securitySchemes: Readonly<Record<string, SecuritySchemePlan>>;
  /**
   * The OAuth flows of the schemes of type `oauth2` and `openIdConnect`, by scheme name (absent
   * when there are none): what the host needs to get tokens for the service. The adapter itself
   * only sends the access token it is given as the scheme's secret.
   */
  readonly oauth?: Readonly<Record<string, OAuthSchemePlan>>;
}
