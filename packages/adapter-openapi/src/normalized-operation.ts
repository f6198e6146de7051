import type { ParameterLocation, PropertyEncoding } from './operation-model';

// The shape `normalizeOperation` gives an operation of either dialect (Swagger 2.0, OpenAPI 3.x),
// in a file of its own: the helpers that build it (path keys, Swagger parameters) read it too.

/** One parameter with its raw (unconverted) schema. */
export interface NormalizedParameter {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly schema: unknown;
  readonly style: string;
  readonly explode: boolean;
  readonly allowReserved: boolean;
  readonly contentType?: string;
}

/** One media type of a body or response. */
export interface NormalizedMedia {
  readonly mediaType: string;
  readonly schema: unknown;
  readonly encoding?: Record<string, PropertyEncoding>;
}

/** The operation in a dialect-independent shape. */
export interface NormalizedOperation {
  readonly parameters: readonly NormalizedParameter[];
  readonly body?: {
    readonly required: boolean;
    readonly description?: string;
    readonly media: NormalizedMedia[];
  };
  readonly responses: ReadonlyArray<{ readonly status: string; readonly media: NormalizedMedia[] }>;
}
