#!/usr/bin/env bash
# Start the cyrnel server on a fresh machine: provision Node 24 + pnpm, install what running and
# building the server needs (the server's packages and their production dependencies, not the
# test corpora and tools), build it, run it. Extra arguments go to the server (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/toolchain.sh)"
pnpm install --frozen-lockfile --prod --filter cyrnel --filter "@cyrnel/server..." >&2
pnpm exec turbo run build --filter "@cyrnel/server..." --output-logs=errors-only >&2
exec node apps/server/dist/cli.js "$@"
