export { type DownloadDefinitionOptions, downloadBytes, downloadDefinition } from './download-definition';
export { type DefinitionFields, type ResolvedDefinition, resolveDefinition } from './resolve-definition';
