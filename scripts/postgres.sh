#!/usr/bin/env bash
# The PostgreSQL of the PostgreSQL suites (the store's, the server's, the several-hosts e2e) and of
# the bench: CYRNEL_TEST_DATABASE_URL when set; else database `cyrnel_test` of a server on
# 127.0.0.1:5432 (trust auth, user postgres), started here from Debian's cluster when it is
# installed but down, installed from Debian's `postgresql` package when missing (as root or
# through passwordless sudo), the database created when missing. CYRNEL_TEST_POSTGRES=skip
# leaves PostgreSQL out (the suites then show as skipped). Says what it did.
set -u
# The default of TEST_DATABASE_URL in packages/store/src/testing/test-database-url.ts.
DATABASE=cyrnel_test
case "${CYRNEL_TEST_POSTGRES:-run}" in
  skip)
    echo "postgres: CYRNEL_TEST_POSTGRES=skip; the PostgreSQL suites are left out"
    exit 0
    ;;
  run | "") ;;
  *)
    echo "postgres: CYRNEL_TEST_POSTGRES must be \"run\" or \"skip\", not \"$CYRNEL_TEST_POSTGRES\"" >&2
    exit 1
    ;;
esac
if [ -n "${CYRNEL_TEST_DATABASE_URL:-}" ]; then
  echo "postgres: CYRNEL_TEST_DATABASE_URL is set; using it"
  exit 0
fi
ready() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; }
# Create the test database unless it exists (psql of the server's own client package).
ensure_database() {
  local admin="postgres://postgres@127.0.0.1:5432/postgres"
  if ! command -v psql >/dev/null 2>&1; then
    echo "postgres: no psql to create database $DATABASE; create it, or set CYRNEL_TEST_DATABASE_URL" >&2
    return 1
  fi
  if [ "$(psql "$admin" -XtAc "select 1 from pg_database where datname = '$DATABASE'" 2>/dev/null)" = 1 ]; then
    echo "postgres: database $DATABASE is there"
    return 0
  fi
  if psql "$admin" -Xqc "create database $DATABASE" >/dev/null 2>&1 ||
    [ "$(psql "$admin" -XtAc "select 1 from pg_database where datname = '$DATABASE'" 2>/dev/null)" = 1 ]; then
    echo "postgres: created database $DATABASE"
    return 0
  fi
  echo "postgres: could not create database $DATABASE as user postgres on 127.0.0.1:5432" >&2
  return 1
}
if ready; then
  echo "postgres: a server answers on 127.0.0.1:5432"
  ensure_database
  exit $?
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "postgres: no server on 127.0.0.1:5432 and this user cannot start one; set CYRNEL_TEST_DATABASE_URL, or CYRNEL_TEST_POSTGRES=skip" >&2
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
ensure_database
