#!/usr/bin/env bash
# System packages the end-to-end suite prefers: Debian's python3-httpbin (run with the system
# /usr/bin/python3, whatever python3 is first on PATH) as the echo upstream. Best effort only,
# each apt step bounded to 5 minutes: when apt is missing, not root, or offline, the suite falls
# back to its own node:http echo server, so this script never fails CI.
set -u

if /usr/bin/python3 -c 'import httpbin' >/dev/null 2>&1; then
  echo "ci-system-deps: python3-httpbin already installed"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ci-system-deps: apt-get not available; e2e uses its node echo server"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "ci-system-deps: not root; e2e uses its node echo server"
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if timeout 300 $SUDO apt-get update -qq >/dev/null 2>&1 &&
  timeout 300 $SUDO apt-get install -y -qq --no-install-recommends python3-httpbin >/dev/null 2>&1; then
  echo "ci-system-deps: installed python3-httpbin"
else
  echo "ci-system-deps: could not install python3-httpbin; e2e uses its node echo server"
fi
exit 0
