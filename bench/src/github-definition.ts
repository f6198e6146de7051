import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * GitHub's REST description as published by `@octokit/openapi` (12.4 MiB, 1,223 operations): the
 * install, search and profile parts all read this one text.
 */
export function readGitHubDefinition(): Promise<string> {
  return readFile(
    fileURLToPath(import.meta.resolve('@octokit/openapi/generated/api.github.com.json')),
    'utf8',
  );
}
