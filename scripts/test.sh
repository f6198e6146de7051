#!/usr/bin/env bash
# The whole test suite on a fresh machine: provision Node 24 + pnpm, install, build, test.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/toolchain.sh)"
pnpm install --frozen-lockfile
pnpm build
pnpm test
