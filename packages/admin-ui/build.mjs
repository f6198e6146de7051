// Builds the UI to static files in dist/: one bundled, minified ES module (Preact and
// @cyrnel/client included), the page and its stylesheet. `dist/size.json` records the sizes.
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });
await build({
  entryPoints: ['src/main.tsx'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outfile: 'dist/app.js',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync('src/index.html', 'dist/index.html');
copyFileSync('src/styles.css', 'dist/styles.css');
const size = (file) => ({ bytes: statSync(file).size, gzip: gzipSync(readFileSync(file)).length });
writeFileSync(
  'dist/size.json',
  `${JSON.stringify({ 'app.js': size('dist/app.js'), 'styles.css': size('dist/styles.css') })}\n`,
);
