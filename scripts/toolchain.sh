#!/usr/bin/env bash
# Provision Node.js 24 and pnpm from the npm registry when the machine lacks them.
#
# Usage:   eval "$(bash scripts/toolchain.sh)"
# Prints the `export PATH=...` line to eval when the provisioned tools are needed, nothing when
# the machine's own Node (>= 24) and pnpm (the version in package.json's packageManager) do.
# The cache lives outside the repository: $CYRNEL_TOOLCHAIN_DIR or ~/.cache/cyrnel-toolchain.
# Only the npm registry is contacted ($npm_config_registry, default registry.npmjs.org): with npm
# when the machine has it (the `node` package ships a real Node binary), else by downloading the
# registry tarballs of `node-<os>-<arch>` and `pnpm` with curl or wget (a machine with no Node).
# Only what is missing is installed: a machine with Node 24 but another pnpm gets pnpm only.
set -euo pipefail

NODE_MAJOR=24
NODE_VERSION=24.21.0
PNPM_VERSION=10.34.0
CACHE="${CYRNEL_TOOLCHAIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cyrnel-toolchain}"
BIN="$CACHE/node_modules/.bin"
REGISTRY="${npm_config_registry:-https://registry.npmjs.org/}"
REGISTRY="${REGISTRY%/}"

log() { echo "toolchain: $*" >&2; }
node_major() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
pnpm_version() { command -v pnpm >/dev/null 2>&1 && pnpm --version 2>/dev/null || echo none; }
node_ok() { [ "$(node_major)" -ge "$NODE_MAJOR" ]; }
pnpm_ok() { [ "$(pnpm_version)" = "$PNPM_VERSION" ]; }

# Download a registry tarball and unpack its `package/` folder into $CACHE/node_modules/<name>.
fetch_package() {
  local name=$1 version=$2 url tmp
  url="$REGISTRY/$name/-/$name-$version.tgz"
  tmp=$(mktemp -d)
  log "downloading $url"
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 --max-time 600 -o "$tmp/package.tgz" "$url"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -T 600 -O "$tmp/package.tgz" "$url"
  else
    log "neither npm, curl nor wget is available to download $name"
    rm -rf "$tmp"
    return 1
  fi
  tar -xzf "$tmp/package.tgz" -C "$tmp"
  rm -rf "${CACHE:?}/node_modules/$name"
  mkdir -p "$CACHE/node_modules"
  mv "$tmp/package" "$CACHE/node_modules/$name"
  rm -rf "$tmp"
}

install_with_tarballs() {
  local os arch
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) log "no Node.js package for architecture $(uname -m)"; return 1 ;;
  esac
  mkdir -p "$BIN"
  if [ "$1" = yes ]; then
    fetch_package "node-$os-$arch" "$NODE_VERSION"
    ln -sf "../node-$os-$arch/bin/node" "$BIN/node"
  fi
  if [ "$2" = yes ]; then
    fetch_package pnpm "$PNPM_VERSION"
    ln -sf ../pnpm/bin/pnpm.cjs "$BIN/pnpm"
    ln -sf ../pnpm/bin/pnpx.cjs "$BIN/pnpx"
  fi
}

install_with_npm() {
  local specs=()
  [ "$1" = yes ] && specs+=("node@$NODE_VERSION")
  [ "$2" = yes ] && specs+=("pnpm@$PNPM_VERSION")
  mkdir -p "$CACHE"
  [ -f "$CACHE/package.json" ] || echo '{"name":"cyrnel-toolchain","private":true}' >"$CACHE/package.json"
  npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error --save-exact "${specs[@]}" >&2
}

# The cache is used when it already holds something, and whenever something has to be installed.
use_cache=no
if [ -d "$BIN" ] && [ -n "$(ls -A "$BIN" 2>/dev/null)" ] && ! { node_ok && pnpm_ok; }; then
  PATH="$BIN:$PATH"
  use_cache=yes
fi

if ! node_ok || ! pnpm_ok; then
  need_node=no need_pnpm=no
  node_ok || need_node=yes
  pnpm_ok || need_pnpm=yes
  log "installing$([ $need_node = yes ] && echo " node@$NODE_VERSION")$([ $need_pnpm = yes ] && echo " pnpm@$PNPM_VERSION") into $CACHE"
  if command -v npm >/dev/null 2>&1 && [ "${CYRNEL_TOOLCHAIN_FETCH:-npm}" = npm ]; then
    install_with_npm "$need_node" "$need_pnpm"
  else
    install_with_tarballs "$need_node" "$need_pnpm"
  fi
  PATH="$BIN:$PATH"
  use_cache=yes
fi

if ! node_ok || ! pnpm_ok; then
  log "could not provision Node $NODE_MAJOR and pnpm $PNPM_VERSION (found node $(node -v 2>/dev/null || echo none), pnpm $(pnpm_version))"
  exit 1
fi

log "node $(node -v), pnpm $(pnpm --version)"
if [ "$use_cache" = yes ]; then
  echo "export PATH=\"$BIN:\$PATH\""
fi
