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
  /**
   * The connection the code named for this call (`cyrnel.services.github.connection('work')`), as
   * an environment passes it to `EnvironmentBindings.invokeTool`; absent: the process's own. The
   * host checks it against the process's principal. Adapters never see it: each connection is
   * hydrated as a service of its own (its `ServiceState.id`, which the adapter treats as opaque).
   */
  connection?: string;
  /**
   * Aborted once the result is no longer wanted: the call's deadline passed, its process ended
   * (kill, timeout, shutdown) or the adapter is being torn down. An adapter hands it
   * to its outbound work so that stops too, and may reject with `signal.reason`:
   *
   * ```ts
   * async invoke({ parameters, signal }) {
   *   const res = await fetch(url, { method: 'POST', body: JSON.stringify(parameters), signal });
   *   return { status: res.status, body: await res.json() };
   * }
   * ```
   *
   * The host always passes one to `AdapterModule.invoke`; an environment may pass its own to
   * `EnvironmentBindings.invokeTool` (the host combines it with the process's).
   */
  signal?: AbortSignal;
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
   * For a tool whose `outputSchema` says nothing: the shape of the results the host has seen
   * (types only, possibly incomplete), to declare instead, marked as observed. Absent otherwise.
   */
  observedOutputSchema?: JSONSchema;
  /**
   * The service's shared schemas (`ServiceDefinition.schemas`) that `{ "$ref": "#/$defs/<name>" }` in
   * `inputSchema` and `outputSchema` resolve against (absent when the service has none).
   * Tools of one service share the same object: render each shared schema once, by name.
   */
  schemas?: Readonly<Record<string, JSONSchema>>;
}
