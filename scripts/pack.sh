#!/usr/bin/env bash
# Pack every publishable package of this checkout into one folder, for installing cyrnel before
# (or without) the npm registry's @cyrnel packages: builds what is needed, packs each with
# `pnpm pack` (workspace: dependencies become versions), checks every tarball, and prints the
# exact `npm install`, `npx` and MCP client lines that use them.
#
# Usage: bash scripts/pack.sh [<dir>] [--no-build]
#   <dir>        where the tarballs go (default dist-packages/ in the checkout; tarballs of these
#                packages already there are replaced)
#   --no-build   pack what is built, without installing or building (after `pnpm build`)
#
# The lines go to stdout; provisioning, installing and building log to stderr. A checkout with a
# development install (`pnpm install`) keeps it; otherwise only what building the published
# packages needs is installed, as `scripts/serve.sh` does (production dependencies).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

OUT="$ROOT/dist-packages"
BUILD=yes
for arg in "$@"; do
  case "$arg" in
    --no-build) BUILD=no ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "pack.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    /*) OUT=$arg ;;
    *) OUT="$PWD/$arg" ;; # relative to where the command was typed
  esac
done
cd "$ROOT"

eval "$(bash scripts/toolchain.sh)"

if [ "$BUILD" = yes ]; then
  filters=()
  while read -r name _; do filters+=(--filter "$name"); done < <(node scripts/pack.mjs list)
  if [ -f node_modules/.modules.yaml ] && grep -Eq '"?devDependencies"?: true' node_modules/.modules.yaml; then
    pnpm install --frozen-lockfile --prefer-offline >&2
  else
    deps=()
    while read -r name _; do deps+=(--filter "$name..."); done < <(node scripts/pack.mjs list)
    pnpm install --frozen-lockfile --prefer-offline --prod --filter cyrnel "${deps[@]}" >&2
  fi
  pnpm exec turbo run build "${filters[@]}" --output-logs=errors-only >&2
fi

exec node scripts/pack.mjs pack "$OUT"
