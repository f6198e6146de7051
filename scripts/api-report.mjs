// The API report of every published package: one Markdown file per entry of its `exports`
// (`packages/<name>/api/<entry>.api.md`), written by API Extractor from the built declarations.
// A public surface then changes only when someone decides it: CI runs `pnpm api:check`, which
// fails when a report differs from what is committed; `pnpm api:update` writes them anew.
//
// Usage: node scripts/api-report.mjs [--update]   (after `pnpm build`)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = resolve(import.meta.dirname, '..');
const update = process.argv.includes('--update');
const temp = mkdtempSync(join(tmpdir(), 'cyrnel-api-'));

/** The declaration file of each entry of a package's `exports` (the `import` condition's). */
function entries(manifest) {
  const found = [];
  for (const [key, value] of Object.entries(manifest.exports ?? {})) {
    if (typeof value !== 'object' || value === null) continue;
    const types = value.types ?? value.import?.types;
    if (typeof types !== 'string' || !types.endsWith('.d.ts')) continue;
    found.push({ key, types });
  }
  return found;
}

/** `@cyrnel/sdk` + `./api` → `sdk-api`; `.` → `sdk`. */
function reportName(packageName, key) {
  const base = packageName.replace(/^@cyrnel\//, '');
  return key === '.' ? base : `${base}-${key.replace(/^\.\//, '').replace(/[^A-Za-z0-9]+/g, '-')}`;
}

let changed = 0;
let failed = 0;
for (const folder of ['packages', 'apps']) {
  for (const name of readdirSync(join(root, folder)).sort()) {
    const dir = join(root, folder, name);
    const manifestPath = join(dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.private) continue;
    for (const { key, types } of entries(manifest)) {
      const entry = join(dir, types);
      if (!existsSync(entry)) {
        console.error(`api-report: ${manifest.name} ${key}: ${types} is missing (run pnpm build first)`);
        failed++;
        continue;
      }
      if (update) mkdirSync(join(dir, 'api'), { recursive: true });
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder: dir,
          mainEntryPointFilePath: entry,
          compiler: {
            overrideTsconfig: {
              compilerOptions: {
                target: 'ES2023',
                module: 'NodeNext',
                moduleResolution: 'NodeNext',
                lib: ['ES2023', 'DOM'],
                types: ['node'],
                strict: true,
                skipLibCheck: true,
              },
              files: [entry],
            },
          },
          apiReport: {
            enabled: true,
            reportFileName: `${reportName(manifest.name, key)}.api.md`,
            reportFolder: join(dir, 'api'),
            reportTempFolder: temp,
          },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            extractorMessageReporting: {
              default: { logLevel: 'none' },
              // The surface is what is exported; release tags (@public, @beta) are not used here.
              'ae-missing-release-tag': { logLevel: 'none' },
            },
            compilerMessageReporting: { default: { logLevel: 'warning' } },
            tsdocMessageReporting: { default: { logLevel: 'none' } },
          },
          newlineKind: 'lf',
        },
        configObjectFullPath: join(dir, 'api-extractor.json'),
        packageJsonFullPath: manifestPath,
      });
      const result = Extractor.invoke(config, { localBuild: update, messageCallback: quiet });
      if (result.apiReportChanged) {
        changed++;
        console.log(
          `api-report: ${manifest.name} ${key} ${update ? 'updated' : 'differs from the committed report'}`,
        );
      }
      if (!result.succeeded && !result.apiReportChanged) failed++;
    }
  }
}
rmSync(temp, { recursive: true, force: true });
if (failed > 0 || (!update && changed > 0)) {
  if (!update && changed > 0)
    console.error(
      'api-report: a public surface changed; if that is intended, run `pnpm api:update` and commit api/*.api.md',
    );
  process.exit(1);
}
console.log(`api-report: ${update ? 'reports written' : 'every public surface matches its report'}`);

/** Keep API Extractor's own chatter out of the output; compiler problems still show. */
function quiet(message) {
  if (message.category === 'Compiler' || message.logLevel === 'error') return;
  message.handled = true;
}
