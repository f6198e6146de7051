#!/usr/bin/env bash
# Start the cyrnel server on a fresh machine: provision Node 24 + pnpm, install, build, run.
# Extra arguments go to the server (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/toolchain.sh)"
pnpm install --frozen-lockfile >&2
pnpm build >&2
exec node apps/server/dist/cli.js "$@"
