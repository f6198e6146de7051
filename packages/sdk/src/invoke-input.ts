import type { JSONSchema } from './json-schema';

/**
 * The payload of every tool call: environments pass it to `EnvironmentBindings.invokeTool`,
 * adapters receive it in `AdapterModule.invoke` after the host's invocation gate.
 */
export interface InvokeInput {
  /** Service id. */
  serviceId: string;
  /** Tool id within the service. */
  toolId: string;
  /** Parameters, already validated against the tool's `inputSchema` by the host. */
  parameters: Record<string, unknown>;
}

/** What `EnvironmentModule.generateToolDocs` receives to render one tool's Markdown page. */
export interface ToolDocsInput {
  /** Service id. */
  serviceId: string;
  /** Tool id. */
  toolId: string;
  /** The tool's description. */
  description: string;
  /** JSON Schema of the parameters. */
  inputSchema: JSONSchema;
  /** JSON Schema of the result. */
  outputSchema: JSONSchema;
  /**
   * The service's shared schemas (`ServiceDefinition.schemas`) that `{ "$ref": "#/$defs/<name>" }` in
   * `inputSchema` and `outputSchema` resolve against (since 0.2.0; absent when the service has none).
   * Tools of one service share the same object: render each shared schema once, by name.
   */
  schemas?: Readonly<Record<string, JSONSchema>>;
}
