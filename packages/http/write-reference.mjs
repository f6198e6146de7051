// Writes API.md from the OpenAPI document, after a build: `pnpm --filter @cyrnel/http reference`.
import { writeFileSync } from 'node:fs';
import { renderReference } from './dist/index.js';

writeFileSync(new URL('./API.md', import.meta.url), renderReference());
