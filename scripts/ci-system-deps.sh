#!/usr/bin/env bash
# System packages the end-to-end suite uses: Debian's python3-httpbin (run with the system
# /usr/bin/python3, whatever python3 is first on PATH) as the echo upstream, and jq, which the
# README's curl walkthrough (examples/walkthrough.sh, run by e2e) pipes through. Best effort
# only, each apt step bounded to 5 minutes: when apt is missing, not root, or offline, nothing is
# installed (the echo test falls back to its own node:http server; the newcomer test says it
# needs jq), so this script never fails CI.
set -u

missing=()
/usr/bin/python3 -c 'import httpbin' >/dev/null 2>&1 || missing+=(python3-httpbin)
command -v jq >/dev/null 2>&1 || missing+=(jq)
if [ ${#missing[@]} -eq 0 ]; then
  echo "ci-system-deps: python3-httpbin and jq already installed"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ci-system-deps: apt-get not available; not installing ${missing[*]}"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "ci-system-deps: not root; not installing ${missing[*]}"
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if timeout 300 $SUDO apt-get update -qq >/dev/null 2>&1 &&
  timeout 300 $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  echo "ci-system-deps: installed ${missing[*]}"
else
  echo "ci-system-deps: could not install ${missing[*]}"
fi
exit 0
