#!/usr/bin/env bash
# Install what running the server needs and build it: scripts/serve.sh, scripts/mcp.sh and
# `pnpm cyrnel-server` run it (with the toolchain on the PATH). It prints on stderr only.
#
# It composes with scripts/test.sh in either order, with or without a terminal:
# - a checkout with the full install (test.sh or `pnpm install` ran: devDependencies are there)
#   keeps it: `pnpm install --frozen-lockfile` (nothing to do when up to date), then the regular
#   build of the server and its packages, cached by turbo (what test.sh built is reused);
# - any other checkout (a fresh clone) gets the server's packages with their production
#   dependencies, the build tools and what the examples import, then the JavaScript of the server's
#   packages only (scripts/build-runtime.mjs: seconds instead of the full build's minute or more).
# The full install over the narrow one recreates the projects' node_modules without a question
# (pnpm-workspace.yaml sets confirmModulesPurge: false).
set -euo pipefail
cd "$(dirname "$0")/.."

# pnpm records what the modules directory holds in node_modules/.modules.yaml (JSON, which is YAML).
full_install() {
  [ -f node_modules/.modules.yaml ] || return 1
  node -e '
    const text = require("node:fs").readFileSync("node_modules/.modules.yaml", "utf8");
    let dev;
    try { dev = JSON.parse(text).included?.devDependencies; }
    catch { dev = /devDependencies["]?:\s*true/.test(text); }
    process.exit(dev === true ? 0 : 1);
  '
}

if full_install; then
  pnpm install --frozen-lockfile >&2
  pnpm exec turbo run build --filter "@cyrnel/server..." --output-logs=errors-only >&2
else
  pnpm install --frozen-lockfile --prod --filter cyrnel --filter "@cyrnel/server..." >&2
  node scripts/build-runtime.mjs >&2
fi
