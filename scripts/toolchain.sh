#!/usr/bin/env bash
# Provision Node.js 24 and pnpm from the npm registry when the machine's Node is older.
#
# Usage:   eval "$(bash scripts/toolchain.sh)"      # exports PATH for this shell
#          source scripts/toolchain.sh               # same, when sourced
# The cache lives outside the repository: $CYRNEL_TOOLCHAIN_DIR or ~/.cache/cyrnel-toolchain.
# Only the npm registry is contacted (the `node` package ships a real Node binary).
set -euo pipefail

NODE_MAJOR=24
NODE_SPEC="node@24.21.0"
PNPM_SPEC="pnpm@10.34.0"
CACHE="${CYRNEL_TOOLCHAIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cyrnel-toolchain}"

node_major() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
pnpm_version() { command -v pnpm >/dev/null 2>&1 && pnpm --version 2>/dev/null || echo none; }
log() { echo "toolchain: $*" >&2; }

if [ -x "$CACHE/node_modules/.bin/node" ]; then
  PATH="$CACHE/node_modules/.bin:$PATH"
fi

if [ "$(node_major)" -lt "$NODE_MAJOR" ] || [ "$(pnpm_version)" != "${PNPM_SPEC#pnpm@}" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    log "npm is required to provision Node $NODE_MAJOR (install Debian's nodejs/npm first)"
    exit 1
  fi
  log "installing $NODE_SPEC and $PNPM_SPEC into $CACHE"
  mkdir -p "$CACHE"
  [ -f "$CACHE/package.json" ] || echo '{"name":"cyrnel-toolchain","private":true}' > "$CACHE/package.json"
  npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error --save-exact "$NODE_SPEC" "$PNPM_SPEC" >&2
  PATH="$CACHE/node_modules/.bin:$PATH"
fi

if [ "$(node_major)" -lt "$NODE_MAJOR" ]; then
  log "Node $NODE_MAJOR could not be provisioned (found $(node -v 2>/dev/null || echo none))"
  exit 1
fi

log "node $(node -v), pnpm $(pnpm --version)"
# When sourced, PATH is already set in the caller; when executed, print an export line to eval.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "export PATH=\"$CACHE/node_modules/.bin:\$PATH\""
fi
