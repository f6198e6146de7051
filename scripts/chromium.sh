#!/usr/bin/env bash
# Debian's Chromium for the admin UI's browser tests (e2e/test/admin-ui.test.ts drives
# /usr/bin/chromium with playwright-core; browser builds cannot be downloaded here). Installs it
# when missing, as root or through passwordless sudo; says why when it cannot.
set -u
if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -1)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "chromium: /usr/bin/chromium is missing and this user cannot install it (apt-get install chromium as root)" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
timeout 600 $SUDO apt-get update -qq >/dev/null &&
  timeout 600 $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
  { echo "chromium: apt-get install chromium failed" >&2; exit 1; }
echo "chromium: installed $(/usr/bin/chromium --version 2>/dev/null | head -1)"
