#!/usr/bin/env bash
# Start the cyrnel server on a fresh machine: provision Node 24 + pnpm, install what running and
# building the server needs (the server's packages and their production dependencies, not the
# test corpora and tools), build it, run it (scripts/prepare-server.sh). Extra arguments go to the
# server (try --help). Runs before or after scripts/test.sh, with or without a terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/toolchain.sh)"
bash scripts/prepare-server.sh
exec node apps/server/dist/cli.js "$@"
