#!/usr/bin/env bash
# The PostgreSQL the store's and the server's tests use (packages/store/test/postgres-contract,
# apps/server/test/postgres): CYRNEL_TEST_DATABASE_URL when set; else a server on 127.0.0.1:5432,
# started here from Debian's cluster when it is installed but down, installed from Debian's
# `postgresql` package when missing (as root or through passwordless sudo). Says what it did.
set -u
if [ -n "${CYRNEL_TEST_DATABASE_URL:-}" ]; then
  echo "postgres: CYRNEL_TEST_DATABASE_URL is set; using it"
  exit 0
fi
ready() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; }
if ready; then
  echo "postgres: a server answers on 127.0.0.1:5432"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "postgres: no server on 127.0.0.1:5432 and this user cannot start one; set CYRNEL_TEST_DATABASE_URL" >&2
    exit 1
  fi
fi
if [ ! -d /etc/postgresql ] || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 $SUDO apt-get update -qq >/dev/null &&
    timeout 600 $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null ||
    { echo "postgres: apt-get install postgresql failed" >&2; exit 1; }
fi
version=$(ls /etc/postgresql | sort -V | tail -1)
$SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
for _ in $(seq 1 30); do ready && break; sleep 1; done
if ! ready; then
  echo "postgres: the $version cluster did not start" >&2
  exit 1
fi
echo "postgres: started the $version cluster on 127.0.0.1:5432"
