#!/usr/bin/env bash
# The whole test suite on a fresh machine: provision Node 24 + pnpm, install, build, then every
# package's tests (files in parallel, then the timing project alone) and the end-to-end suite
# against the built server and real peers (Debian's Chromium, installed when missing, drives the
# admin UI). CYRNEL_TEST_POSTGRES=skip leaves the PostgreSQL suites out (shown as skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/toolchain.sh)"
bash scripts/chromium.sh
bash scripts/postgres.sh
pnpm install --frozen-lockfile
pnpm build
pnpm test
pnpm test:e2e
