// Builds the UI to static files in dist/: the app (Preact and @cyrnel/client bundled, one
// minified ES module), the editor it loads on demand (CodeMirror) and its TypeScript worker (the
// compiler and the ES2022 library declarations), the page, its stylesheet and icon. dist/size.json
// records the sizes.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const LIB_DIR = dirname(createRequire(import.meta.url).resolve('typescript/lib/lib.es2022.d.ts'));

/** lib.es2022.d.ts and every library file it references, transitively. */
function libraryFiles() {
  const files = {};
  const visit = (name) => {
    if (files[name] !== undefined) return;
    const text = readFileSync(join(LIB_DIR, name), 'utf8');
    files[name] = text;
    for (const [, lib] of text.matchAll(/\/\/\/\s*<reference lib="([^"]+)"\s*\/>/g)) visit(`lib.${lib}.d.ts`);
  };
  visit('lib.es2022.d.ts');
  return files;
}

const virtualLibs = {
  name: 'ts-libs',
  setup(context) {
    context.onResolve({ filter: /^virtual:ts-libs$/ }, () => ({ path: 'ts-libs', namespace: 'ts-libs' }));
    context.onLoad({ filter: /.*/, namespace: 'ts-libs' }, () => ({
      contents: `export default ${JSON.stringify(libraryFiles())};`,
      loader: 'js',
    }));
  },
};

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });
const common = {
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: { app: 'src/main.tsx' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunk-[hash]',
  jsx: 'automatic',
  jsxImportSource: 'preact',
});
await build({
  ...common,
  entryPoints: { 'ts-worker': 'src/editor/ts-worker.ts' },
  outdir: 'dist',
  plugins: [virtualLibs],
});
copyFileSync('src/index.html', 'dist/index.html');
copyFileSync('src/styles.css', 'dist/styles.css');
copyFileSync('src/favicon.svg', 'dist/favicon.svg');
const sizes = {};
for (const file of readdirSync('dist').sort()) {
  if (!/\.(js|css)$/.test(file)) continue;
  const body = readFileSync(join('dist', file));
  sizes[file] = { bytes: statSync(join('dist', file)).size, gzip: gzipSync(body).length };
}
writeFileSync('dist/size.json', `${JSON.stringify(sizes, null, 2)}\n`);
